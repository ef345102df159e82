#!/usr/bin/env bash
# Regenerates samples/lesson.webm, samples/live-feed.ogg and samples/student-mic.ogg from
# Debian tools only (espeak-ng, sox, gst-launch-1.0 with plugins-base/good). Run by hand, from
# anywhere, for all of them or only the ones named:
#   samples/make-samples.sh [lesson.webm] [live-feed.ogg] [student-mic.ogg]
# The build never runs it; the output files are checked in.
#
# Determinism: espeak-ng, sox (with -R) and the encoders as configured below are
# deterministic, so the decoded audio and video are bit-identical on every run (checked
# by hashing the decoded streams of two runs). The containers are not byte-identical:
# webmmux writes random Matroska track/segment UIDs (24 bytes) and oggmux a random
# stream serial number. webmmux's DateUTC is pinned with creation-time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in espeak-ng sox gst-launch-1.0; do
  command -v "$tool" >/dev/null || { echo "make-samples: $tool not found" >&2; exit 1; }
done

# sox: -R makes anything random (dither) repeatable; -q keeps the log quiet.
sx() { sox -R -q "$@"; }

# ---------------------------------------------------------------------------------------
# lesson.webm: 10 s, VP8 320x240 @ 15 fps + Opus 48 kHz stereo.
# ---------------------------------------------------------------------------------------
make_lesson() {
lesson_seconds=10

# Narration (about 8.3 s): espeak-ng writes 22.05 kHz mono near full scale; drop 3 dB so
# the resampler cannot clip, resample to 48 kHz (the engine's rate, so the lesson
# player's audioresample is a pass-through) and start it 0.5 s in. The bed below sets
# the length: sox -m pads the shorter input with silence.
espeak-ng -v en-us -s 160 -w "$work/narration.wav" \
  "Lesson three: the water cycle. The sun warms the sea, and water rises as vapour. \
Later, it falls again as rain."
sx "$work/narration.wav" -r 48000 -c 2 "$work/narration48.wav" \
  gain -3 rate -v pad 0.5

# Music bed: a soft A-major chord with a slow tremolo, 29 dB below the narration's
# peaks (about -36 dBFS RMS in the final file), so the track is never silent between
# sentences (the engine's level checks and the mediaSuppressed alarm need a continuous
# courseware signal), with short fades so the file does not start or end with a click.
sx -n -r 48000 -c 2 "$work/bed.wav" \
  synth "$lesson_seconds" sine 220 sine mix 277.18 sine mix 329.63 \
  tremolo 0.25 30 gain -n -30 fade t 0.3 "$lesson_seconds" 0.5

# Mix without sox's automatic 1/n attenuation (-m would halve the narration), then peak
# normalise to -6 dBFS: the lesson and the live feed (peak -8 dBFS) are summed by the
# engine's mixer, and together they must stay below full scale.
sx -m -v 1 "$work/narration48.wav" -v 1 "$work/bed.wav" "$work/lesson-audio.wav" gain -n -6

# Video: the moving-ball test pattern is visibly changing frame to frame and compresses
# well. deadline=0 (best) and threads=1 instead of the realtime default, because VP8's
# realtime mode may pick its speed from measured encode time, which would make the
# output depend on machine load. A keyframe every 2 s keeps seeking cheap.
# Opus at 64 kb/s stereo is transparent enough for speech plus a tone bed.
gst-launch-1.0 -q \
  webmmux name=mux creation-time="2024-09-01T08:00:00Z" writing-app=classroom-audio-samples \
  ! filesink location="$here/lesson.webm" \
  videotestsrc pattern=ball background-color=0xff1e3a5f num-buffers=$((lesson_seconds * 15)) \
  ! video/x-raw,width=320,height=240,framerate=15/1 \
  ! videoconvert ! vp8enc deadline=0 threads=1 target-bitrate=150000 keyframe-max-dist=30 \
  ! queue ! mux.video_0 \
  filesrc location="$work/lesson-audio.wav" ! wavparse ! audioconvert \
  ! audio/x-raw,rate=48000,channels=2 \
  ! opusenc bitrate=64000 ! queue ! mux.audio_0
}

# ---------------------------------------------------------------------------------------
# live-feed.ogg: ~7 s, Opus 48 kHz mono; a teacher's voice standing in for one RTC peer.
# ---------------------------------------------------------------------------------------
make_live_feed() {
# A different voice from the narration (British English, female variant) so that the two
# are easy to tell apart when both play through the mixer.
espeak-ng -v en-gb-x-rp+Andrea -s 165 -w "$work/teacher.wav" \
  "Good morning, class! Can everyone hear me? Please open your books at page twelve. \
Who can tell me where rain comes from?"
# About 7 s of speech; 48 kHz mono (the RTC input format), 0.3 s lead-in and tail,
# 3 dB of resampler headroom, then peak -8 dBFS (mixed with the lesson's -6 dBFS peaks,
# the sum stays below full scale).
sx "$work/teacher.wav" -r 48000 -c 1 "$work/teacher48.wav" \
  gain -3 rate -v pad 0.3 0.3 gain -n -8

# 32 kb/s mono Opus, audio-type=voice: what an RTC uplink would carry.
gst-launch-1.0 -q \
  filesrc location="$work/teacher48.wav" ! wavparse ! audioconvert \
  ! audio/x-raw,rate=48000,channels=1 \
  ! opusenc bitrate=32000 audio-type=voice ! oggmux ! filesink location="$here/live-feed.ogg"
}

# ---------------------------------------------------------------------------------------
# student-mic.ogg: ~4 s, Opus 48 kHz mono; a student's answer standing in for the microphone
# (classroom-player --mic FILE, the demo timeline).
# ---------------------------------------------------------------------------------------
make_student_mic() {
# A third voice (American English, male variant), answering the teacher's question.
espeak-ng -v en-us+m3 -s 150 -w "$work/student.wav" \
  "Rain comes from the clouds. The vapour cools, and falls down as rain."
# 48 kHz mono, the uplink format; 0.5 s lead-in so the answer starts after mic-connect,
# 3 dB of resampler headroom, then peak -6 dBFS: a close-talking microphone.
sx "$work/student.wav" -r 48000 -c 1 "$work/student48.wav" \
  gain -3 rate -v pad 0.5 0.3 gain -n -6
gst-launch-1.0 -q \
  filesrc location="$work/student48.wav" ! wavparse ! audioconvert \
  ! audio/x-raw,rate=48000,channels=1 \
  ! opusenc bitrate=32000 audio-type=voice ! oggmux ! filesink location="$here/student-mic.ogg"
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(lesson.webm live-feed.ogg student-mic.ogg)
for target in "${targets[@]}"; do
  case "$target" in
    lesson.webm) make_lesson ;;
    live-feed.ogg) make_live_feed ;;
    student-mic.ogg) make_student_mic ;;
    *) echo "make-samples: unknown sample '$target'" >&2; exit 1 ;;
  esac
  ls -l "$here/$target"
done
