#!/usr/bin/env python3
"""How late a SCHED_FIFO thread wakes on this machine, idle and with every core busy (#21, the busy minute).

A sound server's graph must finish each cycle within its quantum (PipeWire's 256 samples are 5.33
ms); a real-time thread woken late by more than the cycle's slack loses the cycle. On bare metal a
FIFO thread preempts normal-priority busy loops within microseconds; a virtual machine's vCPU can be
taken away whatever the guest's priorities. Wakes every millisecond on absolute deadlines at FIFO 88
(PipeWire's data threads' priority), first idle, then beside one busy loop per core (the busy
minute's CPUHog), and prints how late it woke.

    python3 scripts/measure/wakeup-latency.py [--seconds 30]
"""
import argparse
import os
import time

import busy_loops


def measure(seconds):
    late = []
    deadline = time.monotonic_ns()
    for _ in range(int(seconds * 1000)):
        deadline += 1_000_000
        wait = deadline - time.monotonic_ns()
        if wait > 0:
            time.sleep(wait / 1e9)
        late.append(time.monotonic_ns() - deadline)
    late.sort()
    over = lambda ms: sum(1 for value in late if value > ms * 1_000_000)  # noqa: E731
    return (f"{len(late)} wakeups, p99 {late[int(len(late) * 0.99)] / 1e6:.2f} ms, max {late[-1] / 1e6:.2f} ms, "
            f"later than 1 ms: {over(1)}, 3 ms: {over(3)}, 5 ms: {over(5)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(88))
    print(f"idle: {measure(args.seconds)}", flush=True)
    hogs = busy_loops.start(args.seconds + 5)
    try:
        print(f"{len(hogs)} busy loops: {measure(args.seconds)}")
    finally:
        busy_loops.stop(hogs)


if __name__ == "__main__":
    main()
