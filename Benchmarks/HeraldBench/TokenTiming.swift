import ArgumentParser
import Foundation
import HeraldCore
import HeraldIntake
import HeraldServer
import HeraldStore

/// `herald-bench token-timing`: whether refusing a wrong API token takes longer the more of a real
/// token's characters it matches, which would let an attacker find a secret character by
/// character. It times the check every request makes (``TokenCache/token(forSecret:now:)``, the
/// same code the authorizer calls) for a valid secret and for wrong secrets of the right length
/// that share 4 (`hld_` only), 10, 20, 30, 40 and 46 of its 47 characters, in alternating rounds,
/// among `--tokens` stored tokens, and reports each one's median nanoseconds per check.
struct TokenTiming: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token-timing",
        abstract: "Time the API-token check for wrong tokens sharing more and more of a real one's characters.")

    @Option(help: "Checks per candidate in a round.")
    var checks = 100_000

    @Option(help: "Rounds (the candidates alternate within each).")
    var rounds = 15

    @Option(help: "Tokens in the cache besides the target.")
    var tokens = 1_000

    func run() async throws {
        say("machine: \(Machine.describe())")
        let cache = TokenCache()
        let scopes = TokenScopes(realms: [.publish])
        var stored: [StoredToken] = []
        var target = ""
        for index in 0...tokens {
            let minted = try Intake.mintToken(name: "t\(index)", scopes: scopes, expiresIn: nil, now: 0, providers: [])
            stored.append(StoredToken(token: minted.token, digest: minted.digest))
            if index == 0 { target = minted.secret }
        }
        cache.replace(with: stored)
        let secret = target
        var candidates: [(label: String, secret: String)] = [("valid", secret)]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for shared in [4, 10, 20, 30, 40, 46] {
            var wrong = Array(secret.prefix(shared))
            for original in secret.dropFirst(shared) {
                // A different character at every later position: exactly `shared` match.
                wrong.append(alphabet.first { $0 != original }!)
            }
            candidates.append(("wrong, \(shared) of 47 shared", String(wrong)))
        }
        var samples = Array(repeating: [Double](), count: candidates.count)
        for _ in 0..<rounds {
            for (index, candidate) in candidates.enumerated() {
                let started = ContinuousClock.now
                var found = 0
                for _ in 0..<checks {
                    if case .valid = cache.token(forSecret: candidate.secret, now: 1) { found += 1 }
                }
                let elapsed = ContinuousClock.now - started
                precondition(found == (index == 0 ? checks : 0))
                let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
                samples[index].append(nanoseconds / Double(checks))
            }
        }
        say("")
        say("| candidate | median ns per check | min | max |")
        say("|---|---:|---:|---:|")
        var medians: [Double] = []
        for (index, candidate) in candidates.enumerated() {
            let sorted = samples[index].sorted()
            let median = sorted[sorted.count / 2]
            if index > 0 { medians.append(median) }
            say("| \(candidate.label) | \(String(format: "%.1f", median)) | \(String(format: "%.1f", sorted.first!)) | \(String(format: "%.1f", sorted.last!)) |")
        }
        say("")
        say("wrong tokens: slowest median / fastest median = \(String(format: "%.3f", medians.max()! / medians.min()!))")
    }
}
