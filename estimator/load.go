// This file defines how the timing pass sees the machine's other load
// while it runs the program: from the system's CPU accounting, the cores
// other processes kept busy during a run. Two runs disturbed alike agree
// with each other (profile.File.Disturbance cannot tell), but both read
// slow: a measurement taken under load is said so, whatever its two runs
// say.

package estimator

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of /proc/stat's times (USER_HZ, 100 on every
// Linux platform Go supports).
const clockTicks = 100

// cpuBusy returns the CPU time all processes spent, summed over the
// machine's CPUs (every state of /proc/stat's cpu line but idle and
// iowait), or false where the system does not say.
func cpuBusy() (time.Duration, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return parseCPUBusy(data)
}

func parseCPUBusy(data []byte) (time.Duration, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] != "cpu" {
			continue
		}
		var busy int64
		for i, s := range f[1:] {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, false
			}
			// user nice system idle iowait irq softirq steal guest guest_nice;
			// guest times are already in user and nice.
			if i == 3 || i == 4 || i >= 8 {
				continue
			}
			busy += n
		}
		return time.Duration(busy) * time.Second / clockTicks, true
	}
	return 0, false
}

// otherCores is the mean number of cores that processes other than the
// run kept busy during it: the system's busy time over the run less the
// run's own CPU time, over its wall time. ok is false where the system
// does not say.
func otherCores(busyBefore, busyAfter, own, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	others := busyAfter - busyBefore - own
	return max(0, others.Seconds()/wall.Seconds())
}
