import Foundation

/// Xcode's numbering of the versions in a model bundle: `People` is the
/// first, `People 2` the second, and `People 10` comes after `People 9`.
///
/// ```swift
/// ModelVersionOrder.precedes("People 9", "People 10")      // true
/// ModelVersionOrder.isEarlier("People 2", than: "People 3")  // true
/// ```
///
/// Names outside that pattern (`Model-v2`) are their own lineage and sort
/// naturally among the others.
enum ModelVersionOrder {
    /// The lineage (the bundle's base name) and number a version name
    /// spells: ("People", 3) for "People 3", ("People", 1) for "People".
    static func parse(_ name: String) -> (lineage: String, number: Int) {
        if let space = name.lastIndex(of: " "), space > name.startIndex {
            let digits = name[name.index(after: space)...]
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number > 0 {
                return (String(name[..<space]), number)
            }
        }
        return (name, 1)
    }

    /// Whether version `a` comes before version `b` in a bundle.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (lineageA, numberA) = parse(a)
        let (lineageB, numberB) = parse(b)
        if lineageA == lineageB { return numberA < numberB }
        return a.compare(b, options: [.numeric, .caseInsensitive]) == .orderedAscending
    }

    /// Whether `given` is an earlier version of the same lineage as
    /// `stored`: a model older than the store it opens.
    static func isEarlier(_ given: String, than stored: String) -> Bool {
        let (lineageGiven, numberGiven) = parse(given)
        let (lineageStored, numberStored) = parse(stored)
        return lineageGiven == lineageStored && numberGiven < numberStored
    }
}
