/// Which Debian 12 package provides a GStreamer element, so a missing element can say what to install.
enum DebianPackage {
    /// The package for `element`, or a hint when it is not in the table.
    static func providing(element: String) -> String {
        if let package = table[element] { return package }
        if element.hasPrefix("av") { return "gstreamer1.0-libav" }
        return "gstreamer1.0-plugins-base, -good, -bad or -ugly (gst-inspect-1.0 \(element) tells once installed)"
    }

    private static let table: [String: String] = {
        var table: [String: String] = [:]
        let groups: [(String, [String])] = [
            ("libgstreamer1.0-0", ["queue", "queue2", "fakesink", "fakesrc", "filesrc", "filesink", "identity", "tee",
                                   "capsfilter", "valve", "input-selector", "output-selector", "multiqueue", "typefind"]),
            ("gstreamer1.0-plugins-base", ["appsrc", "appsink", "audiomixer", "audioconvert", "audioresample", "audiorate",
                                           "audiotestsrc", "volume", "videotestsrc", "videoconvert", "videoscale", "videorate",
                                           "uridecodebin", "uridecodebin3", "decodebin", "decodebin3", "playbin", "playbin3",
                                           "vorbisdec", "vorbisenc", "opusdec", "opusenc", "oggdemux", "oggmux", "theoradec",
                                           "compositor", "encodebin", "tcpclientsrc"]),
            ("gstreamer1.0-plugins-good", ["level", "wavenc", "wavparse", "autoaudiosink", "autoaudiosrc", "autovideosink",
                                           "matroskademux", "matroskamux", "webmmux", "qtdemux", "mp4mux", "vp8dec", "vp8enc",
                                           "vp9dec", "udpsrc", "udpsink", "rtpopusdepay", "rtpopuspay", "rtpjitterbuffer",
                                           "rtspsrc", "souphttpsrc", "pngenc", "flacdec", "equalizer-10bands", "spectrum",
                                           "audioecho", "rtpbin", "interleave", "deinterleave", "jpegenc",
                                           "pulsesink", "pulsesrc", "mpg123audiodec"]),
            ("gstreamer1.0-plugins-bad", ["webrtcdsp", "webrtcechoprobe", "audiobuffersplit", "srtsrc", "srtsink", "h264parse", "fdkaacdec",
                                          "openh264dec", "avtpsrc", "voaacenc"]),
            ("gstreamer1.0-alsa", ["alsasink", "alsasrc"]),
            ("gstreamer1.0-libav", ["avdec_h264", "avdec_aac", "avdec_mp3"]),
            ("gstreamer1.0-plugins-ugly", ["x264enc"]),
        ]
        for (package, elements) in groups { for element in elements { table[element] = package } }
        return table
    }()
}
