#!/usr/bin/env bash
# Runs a private Janus (Debian's `janus`) in the foreground for tests and the benchmark: its own
# config folder with the HTTP API on 127.0.0.1:PORT only, the AudioBridge with four 48 kHz rooms
# (1234 takes plain-RTP participants, 2222 does not, 3333 has a pin, 4444 has a pin and takes no
# plain RTP), the VideoRoom (an SFU) with 5555 (up to 20 publishers) and 6666 (with a pin), every
# other plugin, transport and logger disabled.
#
# Credentials come from files in CONFIG_DIR, never from the command line: room_pin (room 3333's
# pin; "secret" without it), token_auth_secret (turns on token_auth with that secret: tokens are
# EXPIRY,janus,janus.plugin.audiobridge:base64(HMAC-SHA1(secret, what precedes the colon))) and
# api_secret (Janus then also takes that as "apisecret"; either one admits a request). With
# https_cert.pem and https_key.pem there, the API is HTTPS only (on the same PORT).
#
#   scripts/janus-server.sh CONFIG_DIR HTTP_PORT [ADDRESS]
#   scripts/janus-server.sh --check     says which Janus would run; exit 1 (and why) when none
#
# ADDRESS (127.0.0.1 unless given) is where the HTTP API listens and the address the AudioBridge
# names for RTP: kiosks on other hosts (or network namespaces) reach it there.
#
# Which Janus: Debian 12's package (/usr/bin/janus). Debian 13 packages none; there
# CLASSROOM_AUDIO_JANUS_ROOT may name another system's root that has Debian's janus installed
# (scripts/debian13.sh sets it to the Debian 12 machine's / at /run/host), and its Janus runs with
# that system's own loader and libraries: a Janus 1.1 server from another system, as kiosks meet it.
set -euo pipefail

janus_root=${CLASSROOM_AUDIO_JANUS_ROOT:-}
if [[ -x /usr/bin/janus ]]; then
  janus=(janus)
  libraries=/usr/lib/x86_64-linux-gnu/janus
  [[ -d $libraries ]] || libraries=$(dirname "$(dpkg -L janus | grep -m1 '/janus/plugins/')")
elif [[ -n $janus_root && -x $janus_root/usr/bin/janus ]]; then
  arch=$janus_root/usr/lib/x86_64-linux-gnu
  libraries=$arch/janus
  # Its own loader (not the /lib64 symlink, which points into this system) and libraries; GLib's
  # modules and OpenSSL's configuration from there too, not this system's newer ones.
  export GIO_MODULE_DIR=$arch/gio/modules OPENSSL_CONF=$janus_root/usr/lib/ssl/openssl.cnf OPENSSL_MODULES=$arch/ossl-modules
  janus=("$arch/ld-linux-x86-64.so.2" --library-path "$arch:$janus_root/lib/x86_64-linux-gnu" "$janus_root/usr/bin/janus")
else
  echo "janus-server.sh: no Janus here: /usr/bin/janus is missing${janus_root:+, and so is $janus_root/usr/bin/janus (CLASSROOM_AUDIO_JANUS_ROOT)}." >&2
  echo "janus-server.sh: on Debian 12 'make setup' installs it; Debian 13 packages none: set CLASSROOM_AUDIO_JANUS_ROOT to a Debian 12 root with janus installed (docs/TESTING.md, \"Platforms\")." >&2
  exit 1
fi
if [[ ${1:-} == --check ]]; then
  echo "janus-server.sh: Janus is ${janus[*]}"
  exit 0
fi

dir=${1:?usage: janus-server.sh CONFIG_DIR HTTP_PORT [ADDRESS]}
port=${2:?usage: janus-server.sh CONFIG_DIR HTTP_PORT [ADDRESS]}
address=${3:-127.0.0.1}
mkdir -p "$dir"
umask 077   # the configs below may hold the secrets
secret() { [[ -f $dir/$1 ]] && tr -d '\n' < "$dir/$1"; }
auth=""
if token_secret=$(secret token_auth_secret); then auth+=", token_auth = true, token_auth_secret = \"$token_secret\""; fi
if api_secret=$(secret api_secret); then auth+=", api_secret = \"$api_secret\""; fi
pin=$(secret room_pin) || pin=secret

cat > "$dir/janus.jcfg" <<JCFG
general: { configs_folder = "$dir", plugins_folder = "$libraries/plugins", transports_folder = "$libraries/transports",
           events_folder = "$libraries/events", loggers_folder = "$libraries/loggers", debug_level = 4, session_timeout = 60$auth }
nat: { ice_ignore_list = "vmnet" }
plugins: { disable = "libjanus_duktape.so,libjanus_echotest.so,libjanus_lua.so,libjanus_nosip.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_streaming.so,libjanus_textroom.so,libjanus_videocall.so,libjanus_voicemail.so" }
transports: { disable = "libjanus_websockets.so,libjanus_pfunix.so,libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_rabbitmq.so" }
loggers: { disable = "libjanus_jsonlog.so" }
events: { broadcast = false }
JCFG

if [[ -f $dir/https_cert.pem && -f $dir/https_key.pem ]]; then
  cat > "$dir/janus.transport.http.jcfg" <<JCFG
general: { json = "plain", base_path = "/janus", http = false, https = true, secure_port = $port, secure_ip = "$address" }
admin: { admin_http = false }
certificates: { cert_pem = "$dir/https_cert.pem", cert_key = "$dir/https_key.pem" }
JCFG
else
  cat > "$dir/janus.transport.http.jcfg" <<JCFG
general: { json = "plain", base_path = "/janus", http = true, port = $port, ip = "$address", https = false }
admin: { admin_http = false }
JCFG
fi

# local_ip: without it Janus names the host's first interface address for RTP, and packets sent
# to 127.0.0.1 never arrive (shared/RTC-NOTES.md).
cat > "$dir/janus.plugin.audiobridge.jcfg" <<JCFG
general: { local_ip = "$address" }
room-1234: { description = "Class 1234", sampling_rate = 48000, allow_rtp_participants = true }
room-2222: { description = "No plain RTP", sampling_rate = 48000 }
room-3333: { description = "With a pin", sampling_rate = 48000, pin = "$pin", allow_rtp_participants = true }
room-4444: { description = "WebRTC only, with a pin", sampling_rate = 48000, pin = "$pin" }
JCFG

# The VideoRoom forwards each publisher's Opus as it comes (in-band FEC kept, the audio-level
# extension negotiated) and says who talks, from that extension's levels.
cat > "$dir/janus.plugin.videoroom.jcfg" <<JCFG
general: { }
room-5555: { description = "SFU class 5555", publishers = 20, audiocodec = "opus", opus_fec = true, audiolevel_ext = true, audiolevel_event = true,
             audio_active_packets = 50, audio_level_average = 40 }
room-6666: { description = "SFU class with a pin", publishers = 20, audiocodec = "opus", opus_fec = true, audiolevel_ext = true, audiolevel_event = true,
             audio_active_packets = 50, audio_level_average = 40, pin = "$pin" }
JCFG

exec "${janus[@]}" -F "$dir" -C "$dir/janus.jcfg"
