import HeraldTestSupport
import Testing

/// Shell completions come from swift-argument-parser and know Herald's commands.
@Suite struct CompletionScriptTests {
    @Test(arguments: ["bash", "zsh", "fish"])
    func theScriptNamesTheCommands(shell: String) async throws {
        let (status, stdout, stderr) = try await HeraldProcess.runCapturingOutput(["--generate-completion-script", shell])
        #expect(status == 0, "\(stderr)")
        for command in ["serve", "simulate", "import", "config"] {
            #expect(stdout.contains(command), "\(shell) completion lacks \(command)")
        }
    }
}
