import HeraldCore
import HeraldIntake

extension EventStreamHub: PublishedEventSink {}
