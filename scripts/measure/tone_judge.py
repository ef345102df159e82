"""The tone judge the measurement scripts share, as HeardContinuity's in the Swift tests: a recording
of a steady tone (mono S16 at 48 kHz, AMPLITUDE peak at FREQUENCY) cut into 10 ms blocks; a dropout
is a block more than 6 dB under the tone, a click a sample step steeper than 1.5 x the tone allows.
"""
import numpy as np

RATE = 48_000
AMPLITUDE, FREQUENCY = 0.1, 500.0


def judge(samples, settle_blocks=100):
    """When the tone first sounded (s), and the dropouts and clicks after `settle_blocks` more blocks (s)."""
    block = RATE // 100
    tone_rms = AMPLITUDE / np.sqrt(2) * 32_768
    blocks = len(samples) // block
    rms = np.sqrt(np.mean(samples[: blocks * block].astype(np.float64).reshape(blocks, block) ** 2, axis=1))
    first = int(np.argmax(rms > tone_rms / 2)) if (rms > tone_rms / 2).any() else blocks
    start = min(blocks, first + settle_blocks)
    dropouts = [i / 100 for i in range(start, blocks - 1) if rms[i] < tone_rms / 2]
    limit = np.ceil(AMPLITUDE * 2 * np.pi * FREQUENCY / RATE * 32_768 * 1.5)
    steps = np.abs(np.diff(samples[start * block: (blocks - 1) * block].astype(np.int64)))
    clicks, last = [], -10**9
    for index in np.nonzero(steps > limit)[0] + start * block + 1:
        if index - last > RATE // 500:
            clicks.append(index / RATE)
        last = index
    return first / 100, dropouts, clicks
