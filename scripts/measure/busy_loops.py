"""The CPU hog the measurement scripts share, as the busy minute's (`CPUHog`): one busy loop per core
at normal priority, each ending on its own after `seconds`."""
import os
import subprocess


def start(seconds, count=None):
    """Starts `count` busy loops (one per core by default); `stop` ends them sooner. A child of a
    real-time thread would inherit its policy and starve the machine, so each is put back to SCHED_OTHER."""
    return [subprocess.Popen(["timeout", str(int(seconds) + 1), "sh", "-c", "while :; do :; done"],
                             preexec_fn=lambda: os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0)))
            for _ in range(count or os.cpu_count())]


def stop(loops):
    for loop in loops:
        loop.terminate()
    for loop in loops:
        loop.wait()
