import Predicates

/// The text of `.help` and its topics.
///
/// Every example here runs on the People sample store (a test runs each
/// one): the statements' examples in `statementGroups`, the predicates in
/// `predicateExamples` and `operatorGroups`, the literals in `literals`.
enum Help {
    /// The topics besides one per statement.
    static let generalTopics = ["statements", "predicates", "operators", "direct", "dot"]

    /// Every topic `.help` takes, for completion and its error.
    static var topics: [String] { generalTopics + statementHelp.map { $0.words[0] } }

    static func text(topic: String?) -> String {
        guard let topic = topic?.lowercased() else { return overview }
        switch topic {
        case "statements", "statement": return statements
        case "predicates", "predicate": return predicates
        case "operators", "operator": return operators
        case "direct": return direct
        case "dot", "commands": return dot
        default: break
        }
        if let statement = statementHelp.first(where: { $0.words.contains(topic) }) {
            return text(of: statement)
        }
        let suggestion = Suggestions.closest(to: topic, in: topics)
        return "no help on '\(topic)'" + (suggestion.map { "; did you mean '.help \($0)'?" } ?? "")
            + "\ntopics: " + topics.joined(separator: ", ")
    }

    /// The examples `.help` opens with.
    static let overviewExamples = [
        "Person where age > 18 sort LastName:NO,FirstName limit 10",
        "count Person where department.name BEGINSWITH[c] \"eng\"",
        "explain Person where age > 18",
    ]

    static var overview: String {
        """
        mrq: query and change a Core Data store with NSPredicate syntax.

        \(overviewExamples.map { "  " + $0 }.joined(separator: "\n"))

        Statements end at a newline or ';'; a line ending with an operator, AND or
        a comma goes on on the next. Changes stay pending until 'save'.
        Topics: .help statements | predicates | operators | direct | dot
        \(wrapped("One statement, with examples: .help WORD, for " + statementHelp.map { $0.words[0] }.joined(separator: ", ")))
        """
    }

    // MARK: - Predicates

    /// `.help predicates`' examples, a row at a time, side by side.
    static let predicateExamples: [[String]] = [
        ["age > 18 AND (department.name == \"Engineering\" OR salary >= 50000)"],
        ["NOT (active == YES)", "LastName BEGINSWITH[cd] \"sm\""],
        ["ANY people.LastName == \"Zhang\"", "ALL people.age >= 18", "NONE people.active == NO"],
        ["people.@count > 150", "people.@avg.salary > 60000"],
        ["SUBQUERY(people, $p, $p.age > 60).@count > 0"],
        ["hiredAt > CAST(599529600, \"NSDate\")", "hiredAt < now()"],
        ["FirstName IN {\"Ada\", \"Grace\"}", "age BETWEEN {18, 65}"],
        ["email == nil", "salary * 12 > 1000000"],
        ["FirstName ==[cd] \"zoe\"", "active == YES"],
    ]

    /// The literals `.help predicates` lists; each is a statement too.
    static let literals = [
        "\"text\"", "'text'", "42", "3.5", "1e3", "0x1F", "0o17", "0b101", "YES", "NO", "TRUE", "FALSE", "nil", "NULL",
        "{1, 2, 3}", "CAST(700000000, \"NSDate\")",
    ]

    /// `.help predicates`' second part: each of mrq's additions, from the
    /// one list (``LanguageAddition``), with Apple's spelling.
    static var additionExamples: [(mrq: String, apple: String)] {
        LanguageAddition.allCases.map(\.example)
    }

    static var predicates: String {
        let rows = predicateExamples.map { row in
            "  " + row.enumerated().map { i, example in
                i == row.count - 1 ? example : example.padding(toLength: max(example.count + 2, 33), withPad: " ", startingAt: 0)
            }.joined()
        }
        let additions = LanguageAddition.allCases.map { addition in
            "  " + addition.title + "\n    "
                + addition.example.mrq.padding(toLength: max(addition.example.mrq.count + 2, 27), withPad: " ", startingAt: 0)
                + "Apple's spelling: " + addition.example.apple
        }
        return """
            A predicate is written in Apple's NSPredicate format language (Apple's Predicate
            Programming Guide), in 'where' and 'having'.

            Apple's NSPredicate, on the People sample, Person and Department:

            \(rows.joined(separator: "\n"))

            \(wrapped("Literals: " + literals.joined(separator: " "), indent: "          "))
            Keys:     a.b.c through relationships; #key for a reserved word; SELF
            Options:  [c] case-insensitive, [d] diacritic-insensitive, [n] normalized
            Booleans: a key alone is not a predicate: write active == YES, not active
            Nil:      with a nil left side, != is true; <, >, BEGINSWITH… are false
            Functions: by their selectors, as average:(x) add:to:(a, b) now() random()

            mrq's additions (not in Apple's NSPredicate, which refuses them; .strict on and
            mrq --strict refuse them too, and explain names them):

            \(additions.joined(separator: "\n"))

            See .help operators for every operator with an example.
            """
    }

    // MARK: - Operators

    /// `.help operators`: the operators by group, each with an example
    /// (and a note on some).
    static let operatorGroups: [(heading: String, rows: [(operators: String, example: String, note: String)])] = [
        ("Comparison", [
            ("==  =", "age == 30", ""),
            ("!=  <>", "age != 30", ""),
            ("<  <=  =<", "age <= 30", ""),
            (">  >=  =>", "age >= 30", ""),
            ("BETWEEN", "age BETWEEN {18, 65}", "both ends included"),
            ("IN", "FirstName IN {\"Ada\", \"Grace\"}", ""),
        ]),
        ("Strings (options [c] [d] [cd] [n] after each)", [
            ("BEGINSWITH", "FirstName BEGINSWITH \"A\"", ""),
            ("ENDSWITH", "email ENDSWITH[c] \".COM\"", ""),
            ("CONTAINS", "FirstName CONTAINS[cd] \"zo\"", ""),
            ("LIKE", "FirstName LIKE \"A?a*\"", "* any run, ? one character"),
            ("MATCHES", "code MATCHES \"[A-Z]{3}\"", "the whole string, ICU regular expression"),
            ("IN", "\"da\" IN FirstName", "a substring"),
        ]),
        ("Logic", [
            ("AND  &&", "age > 18 AND active == YES", ""),
            ("OR  ||", "age < 18 OR age > 64", ""),
            ("NOT  !", "NOT (age > 18)", ""),
            ("TRUEPREDICATE", "TRUEPREDICATE", "FALSEPREDICATE too"),
        ]),
        ("Collections (to-many relationships: Department's people)", [
            ("ANY  SOME", "ANY people.age > 60", ""),
            ("ALL", "ALL people.active == YES", ""),
            ("NONE", "NONE people.age < 18", ""),
            ("CONTAINS", "people.age CONTAINS 30", "the collection holds the value"),
            ("@count", "people.@count > 150", ""),
            ("@sum @avg @min @max", "people.@sum.salary > 10000000", "@avg counts a nil as 0 (Apple's KVC rule); the others skip nils"),
            ("[n] [FIRST] [LAST] [SIZE]", "{1, 2, 3}[LAST] == 3", ""),
            ("SUBQUERY", "SUBQUERY(people, $p, $p.salary > 50000).@count >= 2", ""),
        ]),
        ("Arithmetic and functions", [
            ("+ - * / **", "salary * 1.1 > 50000", ""),
            ("-", "-age < -60", "unary minus"),
            ("now()", "hiredAt < now()", ""),
            ("sum: count: min: max: average: median: mode: stddev:", "average:({age, 30}) > 60", ""),
            ("sqrt: log: ln: exp: floor: ceiling: abs: trunc:", "sqrt:(salary) > 300", ""),
            ("FUNCTION", "FUNCTION(FirstName, 'uppercaseString') == \"ADA\"", "a method by its selector"),
        ]),
    ]

    static var operators: String {
        var lines: [String] = []
        for group in operatorGroups {
            lines.append(group.heading)
            for row in group.rows {
                var line = "  " + row.operators
                line = line.count < 16 ? line.padding(toLength: 16, withPad: " ", startingAt: 0) : line + "\n" + String(repeating: " ", count: 16)
                line += row.example
                if !row.note.isEmpty { line += "   (\(row.note))" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: - Direct

    /// `.help direct`'s examples, run on the People sample.
    static let directExamples = [
        "update Person where age > 64 set active = NO direct",
        "delete Person where active == NO direct",
    ]

    static var direct: String {
        """
        update ENTITY [where PRED] set KEY = VALUE, … direct
        delete ENTITY [where PRED] direct

        A batch request in the store, as Core Data's NSBatchUpdateRequest and
        NSBatchDeleteRequest: no object is loaded, so it is fast on many rows. It is
        written at once, with no 'save', and 'undo' and 'rollback' cannot take it back.
        It sees what is saved only, not the pending changes. An update sets attributes
        only (values may use the row's own attributes: salary * 1.05), without
        validation; a delete runs the delete rules in SQL (a 'deny' refuses it all).
        Neither takes sort, limit or offset.

        Examples:
        \(directExamples.map { "  " + $0 }.joined(separator: "\n"))
        """
    }

    /// `line` broken at spaces into lines of at most `width` characters
    /// (a word longer than that stays whole), the later ones after `indent`.
    static func wrapped(_ line: String, width: Int = 80, indent: String = "") -> String {
        var lines: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if candidate.count > width, !current.isEmpty, current != indent {
                lines.append(current)
                current = indent + word
            } else {
                current = candidate
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    // MARK: - Dot commands

    /// One line per command: its usage, then what it does in a column; a
    /// usage too long for the column (never cut short) has it on the next
    /// line.
    static var dot: String {
        let column = 30
        return ShellSession.dotCommands.map { command in
            let usage = "  " + command.usage
            guard usage.count < column else { return usage + "\n" + String(repeating: " ", count: column) + command.summary }
            return usage.padding(toLength: column, withPad: " ", startingAt: 0) + command.summary
        }.joined(separator: "\n")
    }
}
