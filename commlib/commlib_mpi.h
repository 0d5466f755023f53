// C helpers of commlib's MPI runtime (build tag mpi), included by the
// cgo preamble of each mpi*.go file: predefined handles are addresses in
// Open MPI, not constants, and a few calls are simpler in C.

#ifndef COMMLIB_MPI_H
#define COMMLIB_MPI_H
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

static inline MPI_Comm cl_comm_world(void) { return MPI_COMM_WORLD; }
static inline MPI_Comm cl_comm_null(void) { return MPI_COMM_NULL; }
static inline MPI_Request cl_request_null(void) { return MPI_REQUEST_NULL; }
static inline void *cl_in_place(void) { return MPI_IN_PLACE; }

// cl_type returns the MPI datatype of commlib's element kind k (buffer.go).
static inline MPI_Datatype cl_type(int k) {
	switch (k) {
	case 1: return MPI_INT64_T;   // int (64-bit)
	case 2: return MPI_INT8_T;
	case 3: return MPI_INT16_T;
	case 4: return MPI_INT32_T;
	case 5: return MPI_INT64_T;
	case 6: return MPI_UINT64_T;  // uint (64-bit)
	case 7: return MPI_UINT8_T;
	case 8: return MPI_UINT16_T;
	case 9: return MPI_UINT32_T;
	case 10: return MPI_UINT64_T;
	case 11: return MPI_FLOAT;
	case 12: return MPI_DOUBLE;
	case 13: return MPI_C_FLOAT_COMPLEX;
	case 14: return MPI_C_DOUBLE_COMPLEX;
	case 15: return MPI_C_BOOL;
	}
	return MPI_DATATYPE_NULL;
}

// cl_op returns the MPI operator of commlib's operator o (ops.go).
static inline MPI_Op cl_op(int o) {
	switch (o) {
	case 1: return MPI_SUM;
	case 2: return MPI_PROD;
	case 3: return MPI_MIN;
	case 4: return MPI_MAX;
	case 5: return MPI_LAND;
	case 6: return MPI_LOR;
	case 7: return MPI_LXOR;
	case 8: return MPI_BAND;
	case 9: return MPI_BOR;
	case 10: return MPI_BXOR;
	}
	return MPI_OP_NULL;
}

static inline int cl_init(int *provided) {
	int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
	if (err != MPI_SUCCESS) return err;
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static inline int cl_tag_ub(void) {
	int *ub, flag = 0;
	if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) != MPI_SUCCESS || !flag) return 32767;
	return *ub;
}

static inline int cl_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }

// cl_send sends in commlib's protocol mode (p2p.go): 2 sync, 3 buffered,
// 4 ready, else standard.
static inline int cl_send(int mode, void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
	switch (mode) {
	case 2: return MPI_Ssend(buf, n, t, dest, tag, comm);
	case 3: return MPI_Bsend(buf, n, t, dest, tag, comm);
	case 4: return MPI_Rsend(buf, n, t, dest, tag, comm);
	}
	return MPI_Send(buf, n, t, dest, tag, comm);
}

static inline int cl_isend(int mode, void *buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm, MPI_Request *req) {
	switch (mode) {
	case 2: return MPI_Issend(buf, n, t, dest, tag, comm, req);
	case 3: return MPI_Ibsend(buf, n, t, dest, tag, comm, req);
	case 4: return MPI_Irsend(buf, n, t, dest, tag, comm, req);
	}
	return MPI_Isend(buf, n, t, dest, tag, comm, req);
}

// cl_status is what commlib keeps of an MPI_Status.
typedef struct { int source, tag, count, error; } cl_status;

static inline void cl_fill(MPI_Status *st, MPI_Datatype t, cl_status *out) {
	out->source = st->MPI_SOURCE;
	out->tag = st->MPI_TAG;
	out->error = st->MPI_ERROR;
	out->count = 0;
	MPI_Get_count(st, t, &out->count);
}

static inline int cl_recv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, cl_status *out) {
	MPI_Status st;
	int err = MPI_Recv(buf, n, t, src, tag, comm, &st);
	st.MPI_ERROR = err;
	cl_fill(&st, t, out);
	return err;
}

// cl_send_addr and cl_recv_addr are the blocking send and receive from
// Go: the buffer comes as an integer, not a pointer, so that cgo does not
// check it at every call (the caller keeps it alive; Go's heap does not
// move), and the status comes back by value, with the error code in it,
// so that it does not escape to Go's heap.
static inline int cl_send_addr(int mode, uintptr_t buf, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
	return cl_send(mode, (void *)buf, n, t, dest, tag, comm);
}

static inline cl_status cl_recv_addr(uintptr_t buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm) {
	cl_status out;
	cl_recv((void *)buf, n, t, src, tag, comm, &out);
	return out;
}

static inline int cl_sendrecv(void *sbuf, int sn, MPI_Datatype st_, int dest, int stag,
		void *rbuf, int rn, MPI_Datatype rt, int src, int rtag, MPI_Comm comm, cl_status *out) {
	MPI_Status st;
	int err = MPI_Sendrecv(sbuf, sn, st_, dest, stag, rbuf, rn, rt, src, rtag, comm, &st);
	st.MPI_ERROR = err;
	cl_fill(&st, rt, out);
	return err;
}

// cl_waitall completes n requests; out[i] is filled for each, with its type t[i].
static inline int cl_waitall(int n, MPI_Request *reqs, MPI_Datatype *t, cl_status *out) {
	MPI_Status *st = malloc(n * sizeof(MPI_Status));
	int err = MPI_Waitall(n, reqs, st);
	for (int i = 0; i < n; i++) {
		if (err == MPI_SUCCESS) st[i].MPI_ERROR = MPI_SUCCESS;
		cl_fill(&st[i], t[i], &out[i]);
	}
	free(st);
	return err;
}

static inline int cl_waitany(int n, MPI_Request *reqs, MPI_Datatype *t, int *index, cl_status *out) {
	MPI_Status st;
	int err = MPI_Waitany(n, reqs, index, &st);
	if (*index >= 0 && *index < n) {
		st.MPI_ERROR = err;
		cl_fill(&st, t[*index], out);
	}
	return err;
}

static inline int cl_test(MPI_Request *req, MPI_Datatype t, int *flag, cl_status *out) {
	MPI_Status st;
	int err = MPI_Test(req, flag, &st);
	if (*flag) {
		st.MPI_ERROR = err;
		cl_fill(&st, t, out);
	}
	return err;
}

static inline int cl_error_class(int code) {
	int class = code;
	MPI_Error_class(code, &class);
	return class;
}

#endif
