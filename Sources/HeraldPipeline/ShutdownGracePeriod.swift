import ServiceLifecycle

/// Runs `body` until it returns; once graceful shutdown begins, gives it `grace` to finish and then
/// cancels it.
///
/// The pipeline's workers stop taking new work as soon as shutdown begins, but a delivery already
/// sent may hang on a slow service; this bounds how long SIGTERM waits for it. What is cancelled is
/// not lost: its page was not checkpointed (or its retry not settled), so the next start resumes it.
func withShutdownGracePeriod(_ grace: Duration, _ body: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await body() }
        group.addTask {
            // Throws only when cancelled, that is when the body finished first.
            do {
                try await gracefulShutdown()
                try await Task.sleep(for: grace)
            } catch {}
        }
        _ = await group.next()
        group.cancelAll()
    }
}
