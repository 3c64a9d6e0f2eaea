import Crypto
import Foundation
import HeraldCore
import HeraldFCM
import HeraldSimulators
import Testing
import _CryptoExtras

/// The RS256 assertion of the OAuth JWT-bearer grant, and the service-account file it is made from.
@Suite struct FCMAssertionTests {
    let account = FCMFixture.account

    private func decodeJSON(_ part: String) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func assertionIsAnRS256JWTWithGoogleClaims() async throws {
        let serviceAccount = try FCMServiceAccount(json: account.json(tokenURI: "https://127.0.0.1:9444/token"), keyPath: "k")
        let signer = await FCMAssertionSigner(account: serviceAccount, audience: serviceAccount.tokenURI)
        let issuedAt = Date(timeIntervalSince1970: 1_700_000_000)
        let assertion = try await signer.assertion(issuedAt: issuedAt)
        let parts = assertion.split(separator: ".").map(String.init)
        try #require(parts.count == 3)

        let header = try decodeJSON(parts[0])
        #expect(header["alg"] as? String == "RS256")
        #expect(header["typ"] as? String == "JWT")
        #expect(header["kid"] as? String == account.privateKeyID)

        let claims = try decodeJSON(parts[1])
        #expect(claims["iss"] as? String == account.clientEmail)
        #expect(claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging")
        #expect(claims["aud"] as? String == "https://127.0.0.1:9444/token")
        #expect(claims["iat"] as? Int == 1_700_000_000)
        #expect(claims["exp"] as? Int == 1_700_003_600)
        #expect(claims["sub"] == nil, "no sub: that is for domain-wide delegation")

        // RSASSA-PKCS1-v1_5 with SHA-256 over "header.claims", checked with swift-crypto and the account's public key.
        let publicKey = try _RSA.Signing.PublicKey(pemRepresentation: account.publicKeyPEM)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(publicKey.isValidSignature(signature, for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: SHA256.hash(data: Data("tampered".utf8)), padding: .insecurePKCS1v1_5))
    }

    @Test func serviceAccountFieldsAreRead() throws {
        let serviceAccount = try FCMServiceAccount(json: account.json(tokenURI: "https://example.test/token"), keyPath: "k")
        #expect(serviceAccount.projectID == "herald-test")
        #expect(serviceAccount.clientEmail == account.clientEmail)
        #expect(serviceAccount.privateKeyID == account.privateKeyID)
        #expect(serviceAccount.tokenURI == "https://example.test/token")
        #expect(!serviceAccount.description.contains("PRIVATE KEY"))
    }

    @Test func tokenURIDefaultsToGoogle() throws {
        let json = #"{"project_id":"p","client_email":"a@p.iam.gserviceaccount.com","private_key":\#(jsonString(account.privateKeyPEM))}"#
        let serviceAccount = try FCMServiceAccount(json: json, keyPath: "k")
        #expect(serviceAccount.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(serviceAccount.privateKeyID == nil)
    }

    @Test(arguments: [
        (#"not json"#, "is not a service-account JSON document"),
        (#"["a"]"#, "is not a service-account JSON document"),
        (#"{"client_email":"a@b","private_key":"x"}"#, "has no \"project_id\""),
        (#"{"project_id":"p","private_key":"x"}"#, "has no \"client_email\""),
        (#"{"project_id":"p","client_email":"a@b"}"#, "has no \"private_key\""),
        (#"{"type":"authorized_user","project_id":"p","client_email":"a@b","private_key":"x"}"#, "expected \"service_account\""),
        (#"{"project_id":7,"client_email":"a@b","private_key":"x"}"#, "\"project_id\" must be a string"),
        (#"{"project_id":"p","client_email":"a@b","private_key":"x","token_uri":"ftp://x"}"#, "\"token_uri\" is not an http or https URL"),
    ])
    func badServiceAccountsNameTheProblem(json: String, problem: String) {
        let error = #expect(throws: ConfigurationError.self) {
            try FCMServiceAccount(json: json, keyPath: "providers.gcm.service_account")
        }
        #expect(error?.key == "providers.gcm.service_account")
        #expect(error?.problem.contains(problem) == true, "\(String(describing: error))")
    }

    @Test func aBadKeyIsReportedWithoutQuotingIt() {
        let garbled = account.privateKeyPEM.replacingOccurrences(of: "A", with: "B")
        let json = #"{"project_id":"p","client_email":"a@b","private_key":\#(jsonString(garbled))}"#
        let error = #expect(throws: ConfigurationError.self) {
            try FCMServiceAccount(json: json, keyPath: "providers.gcm.service_account")
        }
        let description = error?.description ?? ""
        #expect(description.contains("private_key"))
        #expect(!description.contains("BEGIN"))
        #expect(!description.contains(String(garbled.dropFirst(40).prefix(20))))
    }

    private func jsonString(_ text: String) -> String {
        JSONWriter.quoted(text)
    }
}
