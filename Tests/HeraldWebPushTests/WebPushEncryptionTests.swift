import Crypto
import HeraldCore
import HeraldSimulators
import HeraldWebPush
import Testing

/// RFC 8291 message encryption: the Appendix A vector byte for byte, and both directions of `aes128gcm`.
@Suite struct WebPushEncryptionTests {
    /// RFC 8291 Appendix A (providers.md §3.4).
    enum Vector {
        static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
        static let applicationServerPrivate = hex("c9f58f89813e9f8e872e71f42aa64e1757c9254dcc62b72ddc010bb4043ea11c")
        static let applicationServerPublic = hex(
            "04fe33f4ab0dea71914db55823f73b54948f41306d920732dbb9a59a53286482200e597a7b7bc260ba1c227998580992e93973002f3012a28ae8f06bbb78e5ec0f")
        static let userAgentPrivate = hex("ab5757a70dd4a53e553a6bbf71ffefea2874ec07a6b379e3c48f895a02dc33de")
        static let userAgentPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = hex("0c6bfaadad67958803092d454676f397")
        static let authSecret = hex("05305932a1c7eabe13b6cec9fda48882")
        static let sharedSecret = hex("932acbd63208387133837b0cd995911c3441eb66000998614a592727aef6912b")
        static let ikm = hex("4b895831bfcbd05c427aad16843c7cd772a0498a94dba90ecb359476c5d8cab8")
        static let cek = hex("a088555b4e0c45dcb65cdf4288a2f14e")
        static let nonce = hex("e21ffde6495727913faa7a0d")
        static let body = Base64URL.decode(
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml"
                + "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT"
                + "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")!
        static let ciphertext = hex(
            "f297de5b429bba7153d3a4ae0caa091fd425f3b4b5414add8ab37a19c1bbb05cf5cb5b2a2e0562d558635641ec52812c6c8ff42e95ccb86be7cd")

        static var userAgentKeys: WebPushUserAgentKeys {
            get throws {
                WebPushUserAgentKeys(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: userAgentPrivate), authSecret: authSecret)
            }
        }
    }

    @Test func appendixAVectorIsReproducedByteForByte() throws {
        let userAgent = try P256.KeyAgreement.PublicKey(x963Representation: try #require(Base64URL.decode(Vector.userAgentPublic)))
        let ephemeral = try P256.KeyAgreement.PrivateKey(rawRepresentation: Vector.applicationServerPrivate)
        #expect(Array(ephemeral.publicKey.x963Representation) == Vector.applicationServerPublic)

        let body = try WebPushEncryption.encrypt(
            Vector.plaintext, userAgentPublicKey: userAgent, authSecret: Vector.authSecret, ephemeralKey: ephemeral, salt: Vector.salt)

        #expect(body.count == 144)
        #expect(body == Vector.body)
        #expect(Array(body[..<86]) == Vector.salt + [0x00, 0x00, 0x10, 0x00, 0x41] + Vector.applicationServerPublic)
        #expect(Array(body[86...]) == Vector.ciphertext)
    }

    @Test func appendixAIntermediateKeysMatch() {
        let keys = WebPushContentKeys(
            sharedSecret: Vector.sharedSecret,
            authSecret: Vector.authSecret,
            userAgentPublicKey: Base64URL.decode(Vector.userAgentPublic)!,
            applicationServerPublicKey: Vector.applicationServerPublic,
            salt: Vector.salt)
        #expect(keys.inputKeyingMaterial == Vector.ikm)
        #expect(keys.contentEncryptionKey == Vector.cek)
        #expect(keys.nonce == Vector.nonce)
    }

    @Test func appendixABodyDecryptsWithTheUserAgentKeys() throws {
        let keys = try Vector.userAgentKeys
        #expect(keys.p256dh == Vector.userAgentPublic)
        #expect(try keys.decrypt(Vector.body) == Vector.plaintext)
    }

    @Test(arguments: [0, 1, 200, WebPushEncryption.maximumPlaintextLength])
    func whatIsEncryptedDecrypts(length: Int) throws {
        let keys = WebPushUserAgentKeys()
        let subscription = try #require(WebPushSubscription(endpoint: "https://push.example.net/p/1", p256dh: keys.p256dh, auth: keys.auth))
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }

        let first = try WebPushEncryption.encrypt(plaintext, for: subscription)
        let second = try WebPushEncryption.encrypt(plaintext, for: subscription)

        #expect(first.count == WebPushEncryption.headerLength + length + 1 + 16)
        #expect(first.count <= WebPushEncryption.maximumBodyLength)
        // A fresh salt and ephemeral key per message: the same plaintext never gives the same body.
        #expect(first[..<16] != second[..<16])
        #expect(first[21..<86] != second[21..<86])
        #expect(try keys.decrypt(first) == plaintext)
        #expect(try keys.decrypt(second) == plaintext)
    }

    @Test func limitsAreThoseOfProvidersSection3() {
        #expect(WebPushEncryption.headerLength == 86)
        #expect(WebPushEncryption.recordSize == 4096)
        #expect(WebPushEncryption.maximumPlaintextLength == 3993)
    }

    @Test func plaintextLargerThanOneRecordIsRefused() throws {
        let keys = WebPushUserAgentKeys()
        let subscription = try #require(WebPushSubscription(endpoint: "https://push.example.net/p/1", p256dh: keys.p256dh, auth: keys.auth))
        let error = #expect(throws: WebPushEncryptionError.self) {
            try WebPushEncryption.encrypt([UInt8](repeating: 0x61, count: 4079), for: subscription)
        }
        #expect(error?.isPlaintextTooLarge == true)
        #expect(try WebPushEncryption.encrypt([UInt8](repeating: 0x61, count: 4078), for: subscription).count == 86 + 4078 + 17)
    }

    @Test func flippedCiphertextByteFailsAuthentication() throws {
        var body = Vector.body
        body[100] ^= 0x01
        #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(body) }
    }

    @Test func nonFinalDelimiterIsRefused() throws {
        // Sealed with the vector's keys but delimiter 0x01 (a non-final record of multi-record RFC 8188).
        let keys = WebPushContentKeys(
            sharedSecret: Vector.sharedSecret, authSecret: Vector.authSecret,
            userAgentPublicKey: Base64URL.decode(Vector.userAgentPublic)!,
            applicationServerPublicKey: Vector.applicationServerPublic, salt: Vector.salt)
        let sealed = try AES.GCM.seal(
            Vector.plaintext + [0x01], using: SymmetricKey(data: keys.contentEncryptionKey), nonce: AES.GCM.Nonce(data: keys.nonce))
        let body = Array(Vector.body[..<86]) + Array(sealed.ciphertext) + Array(sealed.tag)
        let error = #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(body) }
        #expect(error?.description.contains("0x01") == true)
    }

    @Test func malformedHeadersAreRefused() throws {
        var shortKeyID = Vector.body
        shortKeyID[20] = 64
        #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(shortKeyID) }

        var tinyRecordSize = Vector.body
        tinyRecordSize.replaceSubrange(16..<20, with: [0, 0, 0, 17])
        #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(tinyRecordSize) }

        var compressedKey = Vector.body
        compressedKey[21] = 0x02
        #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(compressedKey) }

        #expect(throws: WebPushDecryptionError.self) { try Vector.userAgentKeys.decrypt(Array(Vector.body[..<90])) }
    }
}
