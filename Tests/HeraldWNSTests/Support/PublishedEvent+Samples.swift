import HeraldCore
import OrderedCollections

extension PublishedEvent {
    /// A publish to `sport` with an English default and a French title and message.
    static func sample(
        data: OrderedDictionary<String, String> = ["score": "2-1"],
        vars: OrderedDictionary<String, String> = ["match": "42"],
        title: OrderedDictionary<String, String> = ["default": "Goal", "fr": "But"],
        message: OrderedDictionary<String, String> = ["default": "Team A scores", "fr": "L'équipe A marque"]
    ) -> PublishedEvent {
        PublishedEvent(event: "sport", title: LocalizedText(title), message: LocalizedText(message), data: data, vars: vars)
    }
}
