# classroom-audio — every entry point a developer, CI or a kiosk integrator needs.
#
#   make demo    installs what is missing, builds, plays the sample lesson with its live feed, a
#                microphone stand-in and a timeline (mic mid-lesson, a duck, disconnect)
#   make test    installs what is missing, builds, runs every test (against private PulseAudio
#                and PipeWire servers) and the leak check, on this machine's platform and, on
#                Debian 12, in a Debian 13 root too (scripts/debian13.sh), each lane reported on
#                its own; LANES=native for this machine's lane alone
#   make bench   installs what is missing, builds classroom-bench in release mode, runs every
#                measurement of DESIGN §7 (about 11 minutes, and 12 more for the second room's
#                five runs per row) and writes docs/BENCHMARKS.md and docs/benchmarks.json
#   make soak    an hour of class in real time (lesson and live feed looping, 200 mic switches):
#                output continuity and memory, written to docs/SOAK.md
#
# Swift comes from /opt/swift when it is not on PATH.

SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SCRATCH ?= .build

.PHONY: setup build demo test test-build test-swift test-quick test-realtime test-engine test-devices-pulseaudio test-devices-pipewire test-cli test-leaks test-session-standalone test-example docs man deb deb-check demo-check release bench soak clean debian13-clean

setup:
	@bash scripts/setup.sh

BUILD_PLAYER = $(SWIFT) build --scratch-path $(SCRATCH) --product classroom-player

build: setup
	$(BUILD_PLAYER)

# Installs only what building and playing needs (no test servers, browsers or packaging tools).
# Plays on the default output when a sound server answers, else writes out/demo.wav; either way
# prints where the sound went and a one-line summary (seconds, level, events in out/demo-events.jsonl).
demo:
	@bash scripts/setup.sh demo
	$(BUILD_PLAYER)
	$(SCRATCH)/debug/classroom-player play samples/lesson.webm --live samples/live-feed.ogg \
		--mic samples/student-mic.ogg --script samples/demo-timeline.json \
		--fallback-wav out/demo.wav --uplink wav:out/demo-uplink.wav --events out/demo-events.jsonl --no-stdin

# Both lanes: this machine's and, on Debian 12, the Debian 13 one in scripts/debian13.sh's root
# (GStreamer 1.26, PipeWire 1.4); LANES=native runs this machine's alone. scripts/test-lanes.sh
# says how the lanes share the 2 cores and reports each on its own.
LANES ?= all
# LOAD=1: one core kept busy at normal priority beside the whole run, in a session of its own, as
# other work on a developer's machine is (a build, a browser); it ends with make test.
LOAD ?=
test: setup
	SWIFT="$(SWIFT)" LOAD="$(LOAD)" bash scripts/test-lanes.sh $(LANES)

# One lane's steps, as scripts/test-lanes.sh calls them (on this machine or inside the root).
test-build: setup
	$(SWIFT) build --scratch-path $(SCRATCH) --build-tests

# Everything against a private PulseAudio server, in four passes:
#  1. the bindings and the session model, in parallel;
#  2. the engine, one test at a time: its tests run real-time graphs and measure them, and 25
#     suites at once on 2 cores starved them (late feeds, slow alarms);
#  3. the suites that plug devices, one at a time: device providers are process-wide, and a second
#     monitor beside the first was measured to miss hotplugs — on PulseAudio, then again on
#     PipeWire + WirePlumber + pipewire-pulse (scripts/with-pipewire.sh);
#  4. the CLI, one test at a time: each runs the built classroom-player (built by --build-tests)
#     as a subprocess playing in real time, and asserts on its WAVs, events, answers and exit codes.
# scripts/swift-test.sh runs each pass; a failed test of a suite in scripts/realtime-suites runs once
# more, alone, and the log says so (RETRIED:). test-quick is pass 1, test-realtime passes 2-4.
# QUICK_SKIP adds suites pass 1 leaves out (the Debian 13 lane: ClassroomAudioTests, pure Swift
# and the same binary behaviour on both, run once in the Debian 12 lane).
PULSE_SUITES = DeviceMonitorTests|PulseRouteTests|ListenerContinuityTests|MicrophoneRetryTests|OutputRaiseTests|OutputAlignmentTests|OutputSilenceTests

# LEAKS=1: pass 1 and the engine pass run under GStreamer's leaks tracer and fail on a leak too
# (scripts/check-leaks.sh --): the leak check without a third run of the same tests.
UNDER_LEAKS = $(if $(LEAKS),SWIFT="$(SWIFT)" SCRATCH="$(SCRATCH)" bash scripts/check-leaks.sh --,)

test-swift: test-quick test-realtime

test-quick:
	$(UNDER_LEAKS) env CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pulseaudio.sh \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build --skip 'ClassroomEngineTests|ClassroomPlayerTests|$(PULSE_SUITES)$(QUICK_SKIP)'

test-realtime: test-engine test-devices-pulseaudio test-devices-pipewire test-cli

test-engine:
	$(UNDER_LEAKS) env CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pulseaudio.sh \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build --filter ClassroomEngineTests --skip '$(PULSE_SUITES)' --no-parallel

test-devices-pulseaudio:
	CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pulseaudio.sh \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build --filter '$(PULSE_SUITES)' --no-parallel

test-devices-pipewire:
	CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pipewire.sh \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build --filter '$(PULSE_SUITES)' --no-parallel

# CLI_PART=a: the CLI suites that follow the engine pass when two lanes share the machine, so that
# each half of step 3 in scripts/test-lanes.sh takes as long as the other; b: the rest; empty: all.
CLI_A_SUITES = OpusPacketTests|JitterBufferTests|StartUpTests|SRTPReplayTests|CitizenTests|CitizenMPRISTests|CitizenMetricsTests
CLI_PART ?=
CLI_SELECT = $(if $(filter a,$(CLI_PART)),--filter 'ClassroomPlayerTests\.($(CLI_A_SUITES))',--filter ClassroomPlayerTests $(if $(filter b,$(CLI_PART)),--skip 'ClassroomPlayerTests\.($(CLI_A_SUITES))',))
test-cli:
	@case "$(CLI_PART)" in ""|a|b) ;; *) echo "test-cli: CLI_PART is a, b or empty (all), not '$(CLI_PART)'" >&2; exit 2 ;; esac
	CLASSROOM_AUDIO_PULSE=1 bash scripts/with-pulseaudio.sh \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build $(CLI_SELECT) --no-parallel

# Every measurement of DESIGN §7 in one run (classroom-player in release too: the mouth-to-ear rows play through it), against a private PulseAudio server (sink retargets,
# module-echo-cancel); regenerates docs/. Not part of `make test`, but `make test` builds it.
# BENCH_FLAGS=--quick shortens the 10-minute run for development.
# An hour of class (lesson and live feed looping, 200 mic switches) in real time; writes
# docs/SOAK.md. Not part of `make test`, which runs the same suite for 2 minutes.
soak: setup
	$(SWIFT) build --scratch-path $(SCRATCH) --build-tests
	CLASSROOM_AUDIO_SOAK_SECONDS=3600 CLASSROOM_AUDIO_SOAK_MIC_SWITCHES=200 CLASSROOM_AUDIO_SOAK_REPORT=docs/SOAK.md \
		env SWIFT="$(SWIFT)" bash scripts/swift-test.sh --scratch-path $(SCRATCH) --skip-build --filter ClassSoakTests

# The room rows run on Debian 13 too, in the same run (#24 item 4), where scripts/debian13.sh (its
# cached root) is present and DEBIAN13 is not 0: the bench is built there (.build-debian13, with its
# own PESQ venv) and classroom-bench runs the same rows there under --beside; the report shows both.
DEBIAN13 ?= 1
DEBIAN13_BENCH = scripts/debian13.sh run env CLASSROOM_VENV=.venv-debian13 bash scripts/with-pulseaudio.sh .build-debian13/release/classroom-bench

bench: setup
	bash scripts/python-venv.sh
	$(SWIFT) build --scratch-path $(SCRATCH) -c release --product classroom-bench
	$(SWIFT) build --scratch-path $(SCRATCH) -c release --product classroom-player
	if [ -x scripts/debian13.sh ] && [ "$(DEBIAN13)" != 0 ]; then \
		scripts/debian13.sh run bash -c 'swift build --scratch-path .build-debian13 -c release --product classroom-bench && CLASSROOM_VENV=.venv-debian13 bash scripts/python-venv.sh' && \
		bash scripts/with-pulseaudio.sh $(SCRATCH)/release/classroom-bench run --output docs --beside "$(DEBIAN13_BENCH)" $(BENCH_FLAGS); \
	else \
		bash scripts/with-pulseaudio.sh $(SCRATCH)/release/classroom-bench run --output docs $(BENCH_FLAGS); \
	fi

# The binding tests once more under GStreamer's leaks tracer; any object still alive fails.
# (make test does not run this: its quick and engine passes run under the tracer, LEAKS=1.)
test-leaks:
	SWIFT="$(SWIFT)" SCRATCH="$(SCRATCH)" bash scripts/check-leaks.sh

# The session model in a package with no GStreamer at all: it builds and passes without it.
test-session-standalone:
	SWIFT="$(SWIFT)" bash scripts/test-session-standalone.sh

# The API reference of the library products (DocC, swift-docc-plugin), as a static site in out/docs:
# open out/docs/documentation/classroomengine/index.html through any web server.
DOC_TARGETS = GStreamer ClassroomAudio ClassroomEngine ClassroomNetwork
docs: setup
	$(SWIFT) package --scratch-path $(SCRATCH) --allow-writing-to-directory out/docs generate-documentation \
		$(addprefix --target ,$(DOC_TARGETS)) --enable-experimental-combined-documentation \
		--output-path out/docs --transform-for-static-hosting --warnings-as-errors

# classroom-player(1) in out/man, generated from the same argument parser as --help
# (swift-argument-parser's generate-manual plugin, from the debug build), so the two cannot disagree.
man: build
	$(SWIFT) package --scratch-path $(SCRATCH) generate-manual --configuration debug --authors classroom-audio
	mkdir -p out/man
	# A blank line is a paragraph break in mdoc only as .Pp (groff warns on the bare ones the help's paragraphs leave).
	sed 's/^$$/.Pp/' $(SCRATCH)/plugins/GenerateManual/outputs/classroom-player/classroom-player.1 > out/man/classroom-player.1
	@echo "man: out/man/classroom-player.1 (read it with: man -l out/man/classroom-player.1)"

# classroom-player as a Debian package for this machine's release, in out/deb: the release build
# with the Swift runtime linked in, Depends from its libraries and the GStreamer plugins it loads
# (scripts/make-deb.sh).
deb: setup man
	SWIFT="$(SWIFT)" SCRATCH="$(SCRATCH)" bash scripts/make-deb.sh out/deb

# A package as a kiosk gets it (DEB=out/deb/classroom-player_…deb; every one in out/deb without):
# lintian with no error (its warnings shown), then installed, run and purged in a bare minbase root of its
# release without Swift (scripts/deb-check.sh; root, or sudo).
DEB ?= $(wildcard out/deb/classroom-player_*.deb)
deb-check:
	@test -n "$(DEB)" || { echo "deb-check: no package in out/deb; make one with: make deb" >&2; exit 1; }
	for deb in $(DEB); do \
		lintian --fail-on error --tag-display-limit 0 "$$deb" && bash scripts/deb-check.sh "$$deb" || exit 1; \
	done

# Tags HEAD as a release: the version --version prints, when CHANGELOG.md has its section
# (scripts/release.sh); SwiftPM resolves `from: "VERSION"` against the tag.
release:
	bash scripts/release.sh

# make demo as a newcomer runs it: from a clone of HEAD, in a bare root of RELEASE (this machine's
# by default) that has only what Swift itself needs (scripts/demo-check.sh; root, or sudo).
RELEASE ?= $(shell . /etc/os-release 2>/dev/null && echo $$VERSION_CODENAME)
demo-check:
	bash scripts/demo-check.sh $(RELEASE)

# examples/embed, a package that depends on this one by path as an integrator's does: built and
# run on the samples (scripts/test-example.sh).
test-example:
	SWIFT="$(SWIFT)" SCRATCH="$(SCRATCH)" bash scripts/test-example.sh

clean:
	rm -rf $(SCRATCH) $(SCRATCH)-example .build-standalone .build-debian13 .build-debian13-example out

# Removes the cached Debian 13 root (/var/cache/classroom-audio); the next make test makes it again.
debian13-clean:
	bash scripts/debian13.sh clean
