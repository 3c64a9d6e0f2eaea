/// Finds the known key a misspelt one was probably meant to be.
enum KeySuggestion {
    /// The known key within two edits of `key` (case-insensitively), if exactly one is nearest.
    static func nearest(to key: String, among known: Set<String>) -> String? {
        let typed = Array(key.lowercased())
        var best: (key: String, distance: Int)?
        var tied = false
        for candidate in known.sorted() {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            guard distance <= 2, distance < typed.count else { continue }
            if let current = best, current.distance == distance {
                tied = true
            } else if best == nil || distance < best!.distance {
                best = (candidate, distance)
                tied = false
            }
        }
        return tied ? nil : best?.key
    }

    /// Levenshtein distance counting an adjacent transposition as one edit (`htpp` → `http`).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
