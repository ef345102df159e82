import COpenSSL

/// Checks an SRTP or SRTCP packet's authentication tag (RFC 3711, AES-CM key derivation and
/// HMAC-SHA1) without decrypting it: whether the packet was made with this master key. A
/// receiver asks before letting a stream it has never seen cost it anything.
public struct SRTPAuthenticator: Sendable {
    /// The SRTP session authentication key (label 0x01) and the SRTCP one (label 0x04).
    private let rtpKey: [UInt8]
    private let rtcpKey: [UInt8]
    /// The SRTP tag's length: 10 bytes (HMAC_SHA1_80) or 4 (HMAC_SHA1_32). SRTCP's is always 10 (RFC 5764 §4.1.2).
    public let tagLength: Int

    /// From a master key (16 bytes, AES-128) and salt (14 bytes); nil for other lengths.
    public init?(masterKey: [UInt8], masterSalt: [UInt8], tagLength: Int = 10) {
        guard masterKey.count == 16, masterSalt.count == 14, tagLength == 10 || tagLength == 4,
              let rtp = SRTPAuthenticator.derive(label: 0x01, length: 20, key: masterKey, salt: masterSalt),
              let rtcp = SRTPAuthenticator.derive(label: 0x04, length: 20, key: masterKey, salt: masterSalt) else { return nil }
        rtpKey = rtp
        rtcpKey = rtcp
        self.tagLength = tagLength
    }

    /// Whether an SRTP packet carries the tag this key makes, for a stream whose rollover counter is `rollover`.
    public func authenticates(rtp packet: [UInt8], rollover: UInt32 = 0) -> Bool {
        guard packet.count > 12 + tagLength, let tag = rtpTag(of: Array(packet.dropLast(tagLength)), rollover: rollover) else { return false }
        return SRTPAuthenticator.same(tag, packet.suffix(tagLength))
    }

    /// `packet` with its tag replaced by the one this key makes (a sender's last step, after any
    /// change to its header); nil when it is too short to hold a tag.
    public func signed(rtp packet: [UInt8], rollover: UInt32 = 0) -> [UInt8]? {
        guard packet.count > 12 + tagLength else { return nil }
        let body = Array(packet.dropLast(tagLength))
        return rtpTag(of: body, rollover: rollover).map { body + $0 }
    }

    /// The tag of an SRTP packet whose header and encrypted payload are `body` (RFC 3711 §4.2: the
    /// HMAC covers them and the rollover counter).
    private func rtpTag(of body: [UInt8], rollover: UInt32) -> ArraySlice<UInt8>? {
        SRTPAuthenticator.mac(of: body + [24, 16, 8, 0].map { UInt8((rollover >> $0) & 0xff) }, key: rtpKey)?.prefix(tagLength)
    }

    /// Whether an SRTCP packet (its E flag and index before a 10-byte tag, no MKI) carries the tag this key makes.
    public func authenticates(rtcp packet: [UInt8]) -> Bool {
        guard packet.count > 8 + 4 + 10, let tag = SRTPAuthenticator.mac(of: Array(packet.dropLast(10)), key: rtcpKey)?.prefix(10) else { return false }
        return SRTPAuthenticator.same(tag, packet.suffix(10))
    }

    /// Whether two tags of one length are equal, every byte compared whatever the first difference:
    /// the time says nothing of the tag.
    private static func same(_ made: ArraySlice<UInt8>, _ received: ArraySlice<UInt8>) -> Bool {
        made.count == received.count && zip(made, received).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// HMAC-SHA1 of `data` under `key` (20 bytes), or nil if OpenSSL made none.
    private static func mac(of data: [UInt8], key: [UInt8]) -> [UInt8]? {
        var mac = [UInt8](repeating: 0, count: 20)
        var length = 0
        let made = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                EVP_Q_mac(nil, "HMAC", nil, "SHA1", nil, keyBytes.baseAddress, keyBytes.count, dataBytes.baseAddress, dataBytes.count, &mac, mac.count, &length)
            }
        }
        return made != nil && length == 20 ? mac : nil
    }

    /// RFC 3711 §4.3.1 with kdr 0: AES-CM keystream under the master key, its IV the salt with
    /// `label` at byte 7, the last two bytes the block counter.
    private static func derive(label: UInt8, length: Int, key: [UInt8], salt: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, key, nil) == 1 else { return nil }
        _ = EVP_CIPHER_CTX_set_padding(context, 0)
        var stream: [UInt8] = []
        var counter: UInt16 = 0
        while stream.count < length {
            var block = salt + [UInt8(counter >> 8), UInt8(counter & 0xff)]
            block[7] ^= label
            var out = [UInt8](repeating: 0, count: 32)
            var written: Int32 = 0
            guard EVP_EncryptUpdate(context, &out, &written, block, 16) == 1, written == 16 else { return nil }
            stream += out.prefix(16)
            counter += 1
        }
        return Array(stream.prefix(length))
    }
}
