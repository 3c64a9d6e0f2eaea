import HeraldConfiguration
import HeraldPipeline

extension HeraldConfiguration.Delivery {
    /// The pipeline's view of the `delivery:` settings.
    var policy: DeliveryPolicy {
        var policy = DeliveryPolicy()
        policy.maxFailures = maxFailures
        policy.maxAttempts = maxAttempts
        policy.retryDelay = retryDelay
        policy.maxRetryDelay = maxRetryDelay
        policy.batchSize = batchSize
        policy.inFlight = inFlight
        policy.concurrentJobs = concurrentJobs
        policy.leaseDuration = leaseDuration
        policy.maxRetryAge = maxRetryAge
        policy.shutdownGracePeriod = shutdownGracePeriod
        policy.deadLetterRetention = deadLetterRetention
        policy.feedbackRetention = feedbackRetention
        policy.receiptRetention = receiptRetention
        policy.idempotencyWindow = idempotencyWindow
        policy.commitInterval = commitInterval
        policy.breakerThreshold = breakerThreshold
        policy.breakerOpenDuration = breakerOpenDuration
        policy.breakerMaxOpenDuration = breakerMaxOpenDuration
        return policy
    }
}
