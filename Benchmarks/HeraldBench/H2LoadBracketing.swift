import Foundation

extension H2OSink {
    /// Measures `subject` against this sink `runs` times, with h2load against the same sink before
    /// the first run and after every run, and compares each run with the mean of the h2load runs on
    /// either side of it.
    ///
    /// This machine's speed drifts by ±15 % within a minute (other tenants), and the mean of the
    /// limit just before and just after a run follows that drift better than one of them. Every run
    /// carries the sink's CPU per request, so that the subject's requests can be compared with
    /// h2load's; the last row's note gives every ratio and their median.
    ///
    /// - Parameters:
    ///   - runs: How many times to measure the subject.
    ///   - subject: The ratio's name for what is measured, such as `Herald`.
    ///   - requests: How many requests one run of the subject makes of the sink.
    ///   - h2loadRequests: How many requests h2load sends.
    ///   - h2load: Runs h2load once and returns its rate.
    ///   - measure: Measures the subject's run `run` (from 1).
    func bracketedRuns(
        _ runs: Int, subject: String, requests: Int, h2loadRequests: Int,
        h2load: () throws -> Double, measure: (_ run: Int) async throws -> Result
    ) async throws -> [Result] {
        var results: [Result] = []
        var ratios: [Double] = []
        func measureH2load(_ when: String) async throws -> Double {
            let (limit, sinkMicroseconds) = try await self.measuringCPU(requests: h2loadRequests) { try h2load() }
            results.append(Result(
                label: "h2load → h2o sink (\(when), this machine's practical limit)",
                rate: limit, seconds: Double(h2loadRequests) / limit, sinkMicrosecondsPerRequest: sinkMicroseconds))
            return limit
        }
        var before = try await measureH2load(runs > 1 ? "before run 1" : "before")
        for run in 1...max(1, runs) {
            var (result, sinkMicroseconds) = try await self.measuringCPU(requests: requests) { try await measure(run) }
            result.sinkMicrosecondsPerRequest = sinkMicroseconds
            say("\(subject) done; running h2load")
            let index = results.count
            let after = try await measureH2load(runs > 1 ? "after run \(run)" : "after")
            let limit = (before + after) / 2
            ratios.append(result.rate / limit)
            result.note = String(
                format: "h2load against the same sink, before and after: %.0f and %.0f req/s, mean %.0f; %@/h2load = %.3f",
                before, after, limit, subject, result.rate / limit)
            results.insert(result, at: index)
            before = after
        }
        if ratios.count > 1, let last = results.indices.last {
            results[last].note = Result.ratioSummary(ratios, of: "\(subject)/h2load")
        }
        return results
    }
}
