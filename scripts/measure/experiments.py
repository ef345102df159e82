"""The runner the measurement scripts here share: each names its experiments (`§N` → function, each
printing one line) and calls `run` with them; the command line picks some, by default all."""
import sys

from gi.repository import Gst


def run(experiments):
    """Prints the GStreamer version, then runs the experiments named on the command line (or all);
    one that fails says so and does not hide the others."""
    print(f"GStreamer {Gst.version_string()}")
    for name in sys.argv[1:] or experiments:
        try:
            experiments[name]()
        except Exception as error:  # one failed experiment must not hide the others
            print(f"{name} failed: {error!r}")
        sys.stdout.flush()
