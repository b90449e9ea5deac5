/// "Did you mean" suggestions by edit distance.
///
/// ```swift
/// Suggestions.closest(to: "agee", in: ["age", "name"])            // "age"
/// Suggestions.closest(to: "BEGINSWTIH", in: ["BEGINSWITH"])       // "BEGINSWITH"
/// ```
public enum Suggestions {
    /// The candidate nearest to `word`, ignoring case, when it is close
    /// enough to be a likely typo: at most one edit for short words, up
    /// to a third of the word's length for longer ones.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let target = Array(word.lowercased().unicodeScalars)
        guard !target.isEmpty else { return nil }
        let limit = max(1, target.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let c = Array(candidate.lowercased().unicodeScalars)
            if abs(c.count - target.count) > limit { continue }
            let d = distance(target, c)
            if d <= limit, d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// The Damerau-Levenshtein distance (optimal string alignment):
    /// insertions, deletions, substitutions and adjacent transpositions.
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let width = b.count + 1
        var previous2 = [Int](repeating: 0, count: width)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: width)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
