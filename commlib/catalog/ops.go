// This file defines the catalog itself: one entry per exported function
// and method of commlib.

package catalog

// Argument lists shared by several operations.
var (
	p2pSend = []Role{ArgComm, ArgSendBuf, ArgPeer, ArgTag}
	p2pRecv = []Role{ArgComm, ArgRecvBuf, ArgPeer, ArgTag}
	rooted  = []Role{ArgComm, ArgSendBuf, ArgRecvBuf, ArgRoot}
	reduced = []Role{ArgComm, ArgSendBuf, ArgRecvBuf, ArgReduction}
	all     = []Role{ArgComm, ArgSendBuf, ArgRecvBuf}
	gatherv = []Role{ArgComm, ArgSendBuf, ArgRecvBuf, ArgCounts, ArgDispls}
	object  = []Role{ArgObject}
	counted = []Role{ArgObject, ArgCount}
	comm    = []Role{ArgComm}
	caller  = []Role{ArgCaller}
	cell    = []Role{ArgCell}
	store   = []Role{ArgCell, ArgValue}
	cas     = []Role{ArgCell, ArgValue, ArgValue}
	errorM  = []Role{ArgError}
)

// ops is the catalog. Paraver values 1 to 49 are those of every Paraver
// trace written so far: they must not change.
var ops = []Op{
	// Starting the ranks.
	{Name: "Main", Args: []Role{ArgFunc}, Class: ClassStartup, Blocking: true},
	{Name: "Run", Args: []Role{ArgCount, ArgFunc}, Class: ClassStartup, Blocking: true},
	{Name: "RunWith", Args: []Role{ArgConfig, ArgFunc}, Class: ClassStartup, Blocking: true},

	// Queries.
	{Name: "Wtime", Class: ClassQuery},
	{Name: "Threads", Args: []Role{ArgDefault}, Class: ClassQuery},
	{Name: "Comm.Rank", Args: comm, Class: ClassQuery},
	{Name: "Comm.Size", Args: comm, Class: ClassQuery},
	{Name: "Comm.WorldRank", Args: comm, Class: ClassQuery},

	// Cartesian topologies.
	{Name: "DimsCreate", Args: []Role{ArgCount, ArgDims}, Class: ClassTopology},
	{Name: "Comm.Dims", Args: comm, Class: ClassTopology},
	{Name: "Comm.Coords", Args: []Role{ArgComm, ArgRank}, Class: ClassTopology},
	{Name: "Comm.CartRank", Args: []Role{ArgComm, ArgCoords}, Class: ClassTopology},
	{Name: "Comm.Shift", Args: []Role{ArgComm, ArgDim, ArgDisp}, Class: ClassTopology},

	// Point-to-point.
	{Name: "Comm.Send", Args: p2pSend, Class: ClassSend, Blocking: true, Protocol: Eager, Paraver: 1},
	{Name: "Comm.Ssend", Args: p2pSend, Class: ClassSend, Blocking: true, Protocol: Sync, Paraver: 2},
	{Name: "Comm.Bsend", Args: p2pSend, Class: ClassSend, Blocking: true, Protocol: Buffered, Paraver: 3},
	{Name: "Comm.Rsend", Args: p2pSend, Class: ClassSend, Blocking: true, Protocol: Ready, Paraver: 4},
	{Name: "Comm.Recv", Args: p2pRecv, Class: ClassRecv, Blocking: true, Paraver: 5},
	{Name: "Comm.Sendrecv", Args: []Role{ArgComm, ArgSendBuf, ArgPeer, ArgTag, ArgRecvBuf, ArgPeer, ArgTag},
		Class: ClassSendrecv, Blocking: true, Protocol: Eager, Paraver: 6},
	{Name: "Comm.Isend", Args: p2pSend, Class: ClassSend, Protocol: Eager, Paraver: 7},
	{Name: "Comm.Issend", Args: p2pSend, Class: ClassSend, Protocol: Sync, Paraver: 8},
	{Name: "Comm.Ibsend", Args: p2pSend, Class: ClassSend, Protocol: Buffered, Paraver: 9},
	{Name: "Comm.Irsend", Args: p2pSend, Class: ClassSend, Protocol: Ready, Paraver: 10},
	{Name: "Comm.Irecv", Args: p2pRecv, Class: ClassRecv, Paraver: 11},

	// Completion of requests.
	{Name: "Comm.Wait", Args: []Role{ArgComm, ArgRequest}, Class: ClassCompletion, Blocking: true, Paraver: 12},
	{Name: "Comm.Waitall", Args: []Role{ArgComm, ArgRequests}, Class: ClassCompletion, Blocking: true, Paraver: 13},
	{Name: "Comm.Waitany", Args: []Role{ArgComm, ArgRequests}, Class: ClassCompletion, Blocking: true, Paraver: 14},
	{Name: "Comm.Test", Args: []Role{ArgComm, ArgRequest}, Class: ClassCompletion, Paraver: 15},

	// Collectives.
	{Name: "Comm.Barrier", Args: comm, Class: ClassCollective, Blocking: true, Shape: Barrier, Paraver: 16},
	{Name: "Comm.Bcast", Args: []Role{ArgComm, ArgBuf, ArgRoot}, Class: ClassCollective, Blocking: true, Shape: OneToAll, Paraver: 17},
	{Name: "Comm.Reduce", Args: []Role{ArgComm, ArgSendBuf, ArgRecvBuf, ArgReduction, ArgRoot},
		Class: ClassCollective, Blocking: true, Shape: AllToOne, Paraver: 18},
	{Name: "Comm.Allreduce", Args: reduced, Class: ClassCollective, Blocking: true, Shape: AllToAll, Paraver: 19},
	{Name: "Comm.Gather", Args: rooted, Class: ClassCollective, Blocking: true, Shape: AllToOne, Paraver: 20},
	{Name: "Comm.Gatherv", Args: []Role{ArgComm, ArgSendBuf, ArgRecvBuf, ArgCounts, ArgDispls, ArgRoot},
		Class: ClassCollective, Blocking: true, Shape: AllToOne, Paraver: 21},
	{Name: "Comm.Scatter", Args: rooted, Class: ClassCollective, Blocking: true, Shape: OneToAll, Paraver: 22},
	{Name: "Comm.Scatterv", Args: []Role{ArgComm, ArgSendBuf, ArgCounts, ArgDispls, ArgRecvBuf, ArgRoot},
		Class: ClassCollective, Blocking: true, Shape: OneToAll, Paraver: 23},
	{Name: "Comm.Allgather", Args: all, Class: ClassCollective, Blocking: true, Shape: AllToAll, Paraver: 24},
	{Name: "Comm.Allgatherv", Args: gatherv, Class: ClassCollective, Blocking: true, Shape: AllToAll, Paraver: 25},
	{Name: "Comm.Alltoall", Args: all, Class: ClassCollective, Blocking: true, Shape: AllToAll, Paraver: 26},
	{Name: "Comm.Alltoallv", Args: []Role{ArgComm, ArgSendBuf, ArgCounts, ArgDispls, ArgRecvBuf, ArgCounts, ArgDispls},
		Class: ClassCollective, Blocking: true, Shape: AllToAll, Paraver: 27},
	{Name: "Comm.Scan", Args: reduced, Class: ClassCollective, Blocking: true, Shape: Prefix, Paraver: 28},
	{Name: "Comm.Exscan", Args: reduced, Class: ClassCollective, Blocking: true, Shape: Prefix, Paraver: 29},

	// Communicators.
	{Name: "Comm.Split", Args: []Role{ArgComm, ArgColor, ArgKey}, Class: ClassCommCreate, Blocking: true, Paraver: 30},
	{Name: "Comm.Dup", Args: comm, Class: ClassCommCreate, Blocking: true, Paraver: 31},
	{Name: "Comm.CartCreate", Args: []Role{ArgComm, ArgDims, ArgPeriods}, Class: ClassCommCreate, Blocking: true, Paraver: 32},

	// Threads: pools and fork/join.
	{Name: "Comm.NewPool", Args: []Role{ArgComm, ArgCount}, Class: ClassPool, Paraver: 33},
	{Name: "Pool.SetTask", Args: []Role{ArgObject, ArgFunc}, Class: ClassPool, Paraver: 34},
	{Name: "Pool.WaitForAll", Args: object, Class: ClassPool, Blocking: true, Paraver: 35},
	{Name: "Pool.Close", Args: object, Class: ClassPool, Paraver: 36},
	{Name: "Comm.Parallel", Args: []Role{ArgComm, ArgCount, ArgFunc}, Class: ClassPool, Blocking: true, Paraver: 37},
	{Name: "Pool.SetReduceOp", Args: []Role{ArgObject, ArgReduction}, Class: ClassPool},
	{Name: "Pool.Size", Args: object, Class: ClassPool},

	// Threads: synchronization.
	{Name: "Comm.NewMutex", Args: caller, Class: ClassSync, Paraver: 38},
	{Name: "Mutex.Lock", Args: object, Class: ClassSync, Blocking: true, Paraver: 39},
	{Name: "Mutex.TryLock", Args: object, Class: ClassSync, Paraver: 40},
	{Name: "Mutex.Unlock", Args: object, Class: ClassSync, Paraver: 41},
	{Name: "Mutex.Critical", Args: []Role{ArgObject, ArgFunc}, Class: ClassSync, Blocking: true},
	{Name: "Comm.NewSemaphore", Args: []Role{ArgComm, ArgCount}, Class: ClassSync, Paraver: 42},
	{Name: "Semaphore.Acquire", Args: counted, Class: ClassSync, Blocking: true, Paraver: 43},
	{Name: "Semaphore.TryAcquire", Args: counted, Class: ClassSync, Paraver: 44},
	{Name: "Semaphore.Release", Args: counted, Class: ClassSync, Paraver: 45},
	{Name: "Comm.NewBarrier", Args: []Role{ArgComm, ArgCount}, Class: ClassSync, Paraver: 46},
	{Name: "Barrier.Wait", Args: object, Class: ClassSync, Blocking: true, Paraver: 47},

	// Buffered sends.
	{Name: "Comm.BufferAttach", Args: []Role{ArgComm, ArgCount}, Class: ClassBuffer, Paraver: 48},
	{Name: "Comm.BufferDetach", Args: caller, Class: ClassBuffer, Paraver: 49},

	// Threads: atomics.
	{Name: "AtomicInt.Load", Args: cell, Class: ClassAtomic},
	{Name: "AtomicInt.Store", Args: store, Class: ClassAtomic},
	{Name: "AtomicInt.Add", Args: store, Class: ClassAtomic},
	{Name: "AtomicInt.Swap", Args: store, Class: ClassAtomic},
	{Name: "AtomicInt.CompareAndSwap", Args: cas, Class: ClassAtomic},
	{Name: "AtomicFloat.Load", Args: cell, Class: ClassAtomic},
	{Name: "AtomicFloat.Store", Args: store, Class: ClassAtomic},
	{Name: "AtomicFloat.Add", Args: store, Class: ClassAtomic},
	{Name: "AtomicFloat.Swap", Args: store, Class: ClassAtomic},
	{Name: "AtomicFloat.CompareAndSwap", Args: cas, Class: ClassAtomic},

	// Ending the run.
	{Name: "Comm.Abort", Args: []Role{ArgCaller, ArgError}, Class: ClassAbort},

	// Outside the model.
	{Name: "AddHooks", Args: []Role{ArgHooks}, Class: ClassTooling},
	{Name: "AbortError.Error", Args: errorM, Class: ClassValue},
	{Name: "AbortError.Unwrap", Args: errorM, Class: ClassValue},
	{Name: "DeadlockError.Error", Args: errorM, Class: ClassValue},
	{Name: "Error.Error", Args: errorM, Class: ClassValue},
	{Name: "Op.String", Args: []Role{ArgValue}, Class: ClassValue},
	{Name: "Op.CombineInt64", Args: []Role{ArgValue, ArgValue, ArgValue}, Class: ClassValue},
	{Name: "Op.CombineFloat64", Args: []Role{ArgValue, ArgValue, ArgValue}, Class: ClassValue},
}
