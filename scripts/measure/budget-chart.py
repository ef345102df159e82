#!/usr/bin/env python3
"""Draws the mouth-to-ear budget (classroom-bench's mouth-to-ear-budget.json) as stacked bars.

One bar per path and sound server, stacked from figures measured in the same run, summing to the
path's measured median: the floor (gst-launch sender and receiver); what kiosk A adds over the
floor's sender (kiosk → kiosk against floor → kiosk, each without B's jitter buffer); kiosk B's
jitter buffer beyond the floor's 10 ms; the rest of kiosk B (decode, hand-over, the engine's
pipeline latency) beyond the floor's receiver; and what Janus adds over the direct path. Lines
mark ITU-T G.114's 150 ms and each server's goal (its floor + 25 ms).

    budget-chart.py BUDGET.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PARTS = [("floor (gst-launch sender and receiver)", "#9e9e9e"),
         ("kiosk A beyond the floor's sender", "#4c72b0"),
         ("kiosk B's jitter buffer beyond 10 ms", "#dd8452"),
         ("kiosk B's engine beyond the floor's receiver", "#c44e52"),
         ("Janus's own floor beyond the direct floor", "#8172b3"),
         ("the kiosks' further part through Janus", "#937860")]

budgets = json.load(open(sys.argv[1]))
bars = []  # (label, total, [values in PARTS order])
for server in budgets:
    floor, both, receiving = server.get("floor"), server.get("kioskToKiosk"), server.get("floorToKiosk")
    if None in (floor, both, receiving):
        continue
    jitter, receiving_jitter = server.get("jitterBuffer") or 0, server.get("floorToKioskJitterBuffer") or 0
    sender = (both - jitter) - (receiving - receiving_jitter)
    # A negative part (measurement spread) is drawn as 0 and taken from B's engine, so the bar keeps its measured height.
    parts = [floor, max(sender, 0), max(jitter - 10, 0)]
    parts.append(both - sum(parts))
    bars.append((f"{server['server']}\nkiosk → kiosk", both, parts + [0, 0]))
    if server.get("room") is not None:
        through = server["room"] - both
        # Janus's own floor over the direct one (measured with gst-launch on either side), the rest the kiosks'.
        own = min(max(server["roomFloor"] - floor, 0), through) if server.get("roomFloor") is not None else through
        bars.append((f"{server['server']}\nvia Janus", server["room"], parts + [own, through - own]))

figure, axes = plt.subplots(figsize=(10, 5.5), dpi=110)
labelled = set()
for index, (label, total, values) in enumerate(bars):
    bottom = 0
    for (part, colour), value in zip(PARTS, values):
        axes.bar(index, value, bottom=bottom, color=colour, label=None if part in labelled or value <= 0 else part, width=0.6)
        labelled.update([part] if value > 0 else [])
        bottom += value
    axes.text(index, total + 4, f"{total:.0f} ms", ha="center", fontsize=9)
axes.axhline(150, color="black", linestyle="--", linewidth=1)
axes.text(len(bars) - 0.6, 153, "ITU-T G.114: 150 ms", ha="right", fontsize=8)
for number, server in enumerate(s for s in budgets if s.get("floor") is not None):
    goal = server["floor"] + 25
    axes.hlines(goal, -0.4 + 2 * number, 1.4 + 2 * number, color="#55a868", linestyle=":", linewidth=1.5)
    axes.text(0.5 + 2 * number, goal + 3, f"goal: {server['server']} floor + 25 ms", ha="center", fontsize=8, color="#2f7a43",
              bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
axes.set_xticks(range(len(bars)), [label for label, _, _ in bars], fontsize=8)
axes.set_xlim(-0.6, len(bars) - 0.4)
axes.set_ylabel("mouth-to-ear, ms (median of the bursts)")
axes.set_title("Where the time goes between two kiosks, measured through the sound server", fontsize=10)
handles, labels = axes.get_legend_handles_labels()
axes.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
figure.tight_layout()
figure.savefig(sys.argv[2])
