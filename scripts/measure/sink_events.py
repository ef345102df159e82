"""What an output sink says only in GStreamer's debug log, for the measurement scripts: audiobasesink's
clock-skew corrections and resyncs, and pulsesink's underflows, each with the monotonic time it came."""
import threading
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


class SinkEvents:
    """Starts listening once made (after Gst.init); GStreamer's own printer is taken off stderr, since
    the sink's settling alone logs dozens of skew corrections."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events = []  # (monotonic seconds, "category: message")
        Gst.debug_set_threshold_for_name("audiobasesink", Gst.DebugLevel.WARNING)
        Gst.debug_set_threshold_for_name("pulse", Gst.DebugLevel.WARNING)
        Gst.debug_add_log_function(self._log, None)
        Gst.debug_remove_log_function(Gst.debug_log_default)

    def _log(self, category, level, file, function, line, obj, message, *user):
        text = message.get()
        if "clock skew" in text or "discontinuity" in text.lower() or "underflow" in text.lower():
            with self._lock:
                self._events.append((time.monotonic(), f"{category.get_name()}: {text}"))

    def relative_to(self, began):
        """Every event so far as (seconds after `began`, a monotonic time; negative before it, text)."""
        with self._lock:
            return [(at - began, text) for at, text in self._events]
