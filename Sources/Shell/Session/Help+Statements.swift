extension Help {
    /// One statement's help, `.help WORD` for each of its words: how it is
    /// written, what it does, and examples that run on the People sample
    /// store, in order (a test runs them).
    struct Statement {
        /// The topic names: the statement's words (`sum`, `min`, …).
        let words: [String]
        /// How it is written: KEY, ENTITY, PRED… stand for what you write,
        /// `[…]` is optional, `a|b` one of them.
        let usage: [String]
        /// One line, for `.help statements`.
        let summary: String
        let about: String
        let examples: [String]
    }

    /// The statements in the order `.help statements` lists them, by group.
    static let statementGroups: [(heading: String, statements: [Statement])] = [
        ("Queries", [
            Statement(
                words: ["query", "where", "sort", "limit", "offset"],
                usage: ["ENTITY [where PRED] [sort KEY[:YES|:NO],…] [limit N] [offset N]"],
                summary: "the objects that match, sorted, a page of them",
                about: """
                    The objects of ENTITY (and of its sub-entities) that match the predicate \
                    (.help predicates), in the order of the sort keys: ascending, or descending \
                    with :NO. Unsaved changes are included, as Core Data's fetches include them.
                    """,
                examples: [
                    "Person where age > 60",
                    "Person where department.name == \"Engineering\" sort LastName:NO,FirstName limit 5",
                    "Person sort salary:NO limit 3 offset 3",
                ]),
            Statement(
                words: ["first"],
                usage: ["first ENTITY [where PRED] [sort KEY[:YES|:NO],…]"],
                summary: "the first object that matches, or none",
                about: "One object: the first in the sort order, as MagicalRecord's findFirst.",
                examples: ["first Person where age > 60 sort age:NO", "first Department where name BEGINSWITH \"S\""]),
            Statement(
                words: ["count"],
                usage: ["count ENTITY [where PRED]", "count of ENTITY [where PRED] group by KEY,… [having PRED] [sort count|KEY[:NO]] [limit N]"],
                summary: "how many objects match; with 'of … group by', per group",
                about: """
                    A number, counted in the store. With 'of' and 'group by', one row per \
                    group with its count; 'having' keeps the groups whose count matches.
                    """,
                examples: [
                    "count Person where active == YES",
                    "count of Person group by department.name having count > 150",
                    "count of Person group by department.name sort count:NO limit 3",
                ]),
            Statement(
                words: ["select", "distinct"],
                usage: ["select [distinct] EXPRESSION,… from ENTITY [where PRED] [sort …] [limit N] [offset N]"],
                summary: "chosen key paths and expressions of the objects that match, as columns",
                about: """
                    Columns of key paths (through to-one relationships too), collection \
                    operators on to-many ones (people.@count) and arithmetic, each named as \
                    written; 'distinct' drops repeated rows.
                    """,
                examples: [
                    "select FirstName, LastName, department.name from Person where age > 64 sort age:NO limit 3",
                    "select distinct department.name from Person where salary > 115000",
                    "select name, people.@count, people.@avg.age, budget / 12 from Department",
                ]),
            Statement(
                words: ["sum", "min", "max", "avg"],
                usage: ["sum|min|max|avg KEY of ENTITY [where PRED] [group by KEY,…] [having PRED] [limit N]"],
                summary: "one value over the objects that match; with 'group by', per group",
                about: """
                    Computed in the store. With 'group by', one row per group; in \
                    'having', the function's name stands for its value.
                    """,
                examples: [
                    "avg salary of Person where active == YES",
                    "max age of Person group by department.name having max > 64",
                ]),
            Statement(
                words: ["fetch"],
                usage: ["fetch", "fetch TEMPLATE [with NAME = VALUE, …]"],
                summary: "the model's fetch request templates: list them, or run one",
                about: """
                    A fetch request template is a named predicate kept in the model (Xcode's \
                    Fetch Requests); 'with' gives its $variables.
                    """,
                examples: ["fetch", "fetch PeopleOlderThan with minAge = 64"]),
        ]),
        ("Changes (pending until save)", [
            Statement(
                words: ["insert"],
                usage: ["insert ENTITY { KEY: VALUE, … }"],
                summary: "a new object",
                about: """
                    A to-one relationship takes 'first ENTITY where …' or an object \
                    variable; a to-many takes a query or a variable holding objects. Keys \
                    left out get the model's default values.
                    """,
                examples: [
                    "insert Department { name: \"Robotics\", budget: 250000, code: \"ROB\" }",
                    """
                    insert Person { FirstName: "Ada", LastName: "Lovelace", personID: 7, age: 36, \
                    department: first Department where name == "Robotics" }
                    """,
                ]),
            Statement(
                words: ["update", "set"],
                usage: ["update ENTITY [where PRED] set KEY = VALUE, … [direct]"],
                summary: "change the objects that match",
                about: """
                    A value may use the object's own keys (salary * 1.05). One statement is \
                    one undo step, and changes all or nothing. With 'direct', see .help direct.
                    """,
                examples: [
                    "update Person where department.name == \"Sales\" set salary = salary * 1.05",
                    "update Person where age > 64 set active = NO, salary = salary + 1000",
                ]),
            Statement(
                words: ["delete"],
                usage: ["delete ENTITY [where PRED] [direct]"],
                summary: "delete the objects that match, running the delete rules",
                about: """
                    The model's delete rules run: nullify, cascade, deny (which refuses the \
                    whole statement). With 'direct', see .help direct.
                    """,
                examples: ["delete Person where active == NO", "delete Person where age > 60 AND salary < 40000"]),
            Statement(
                words: ["truncate"],
                usage: ["truncate ENTITY"],
                summary: "delete every object of an entity",
                about: "As 'delete ENTITY' with no predicate: the delete rules run, and undo brings them back.",
                examples: ["truncate Person"]),
            Statement(
                words: ["import"],
                usage: ["import ENTITY from \"FILE.json\""],
                summary: "objects from a JSON array (or one object), by MagicalRecord's rules",
                about: """
                    The file name is relative to the script's folder, or the current one. \
                    The model's userInfo drives it, as MagicalRecord's import:
                      mappedKeyName        the JSON key (a.b.c for nested keys); .1 … .9 are fallbacks
                      relatedByAttribute   the attribute that identifies objects (default <entity>ID)
                      dateFormat           e.g. yyyy-MM-dd; UnixTime for milliseconds since 1970
                      useDefaultValueWhenNotPresent  YES: an absent key sets the default value
                    Existing objects are updated, not duplicated; JSON null sets nil.
                    """,
                examples: ["import Person from \"people.json\""]),
            Statement(
                words: ["save", "rollback", "undo", "redo"],
                usage: ["save", "rollback", "undo", "redo"],
                summary: "write the pending changes, drop them, or step back and forth",
                about: """
                    Changes stay pending, and the prompt shows mrq*>, until 'save' writes \
                    them in one transaction. 'rollback' drops them; 'undo' and 'redo' step \
                    over them one statement at a time, back as far as the last save.
                    When another writer saved the same rows since you read them, changes \
                    to different properties merge; a save that would overwrite their \
                    value, land a new object on a stored object's unique key, update an \
                    object they deleted, or delete one they changed is refused, naming \
                    the object, the property, their value and yours, and how to go on: \
                    keep yours, take theirs (see .merge-policy), or rollback, which reads \
                    the rows again, and redo.
                    """,
                examples: [
                    "update Person where personID == 100749 set age = 37",
                    "undo",
                    "redo",
                    "rollback",
                    "insert Department { name: \"Design\" }",
                    "save",
                ]),
        ]),
        ("Schema and variables", [
            Statement(
                words: ["entity"],
                usage: [
                    "entity NAME [: PARENT] [abstract] { PROPERTY; … }",
                    "PROPERTY: NAME: TYPE [= DEFAULT] [required|optional|transient|unique|indexed]",
                    "          NAME: ENTITY|[ENTITY] [inverse NAME|[NAME]] [ordered] [cascade|nullify|deny|noaction] [min N] [max N]",
                ],
                summary: "declare an entity, or change one (the store migrates)",
                about: """
                    Types: String Int16 Int32 Int64 Double Float Decimal Bool Date Data UUID URI \
                    Transformable. [ENTITY] is a to-many relationship; an inverse in brackets \
                    makes it many-to-many. A declaration that would drop data is refused.
                    """,
                examples: [
                    "entity Player { name: String required; rating: Int16 = 1000 indexed }",
                    "entity Team { name: String required unique; players: [Player] inverse team ordered cascade }",
                    "entity Tag { label: String; players: [Player] inverse [tags] }",
                ]),
            Statement(
                words: ["let"],
                usage: ["let NAME = STATEMENT"],
                summary: "remember objects or a value as $NAME",
                about: """
                    A query or 'first' keeps objects, for insert and update values; a count, \
                    an aggregate or an expression keeps a value, for predicates. 'mrq --param \
                    NAME=VALUE' sets one from the command line.
                    """,
                examples: [
                    "let n = avg age of Person",
                    "Person where age > $n + 30",
                    "let d = first Department where name == \"Sales\"",
                    "insert Person { FirstName: \"Grace\", personID: 8, department: $d }",
                    "count Person where department == $d",
                ]),
        ]),
        ("Teaching and history", [
            Statement(
                words: ["explain"],
                usage: ["explain STATEMENT"],
                summary: "how any statement runs: what it does, the SQL that runs, bound values, the Swift call",
                about: "Runs nothing: shows what the statement does and the very SQL it runs, with what is left to do in memory.",
                examples: [
                    "explain Person where age > 18 sort LastName:NO", "explain count Person where department.name == \"Sales\"",
                    "explain update Person where age > 64 set active = NO", "explain sum salary of Person group by department.name",
                ]),
            Statement(
                words: ["history"],
                usage: ["history [where PRED] [sort KEY[:YES|:NO],…] [limit N]", "count history [where PRED]"],
                summary: "the store's persistent history: who saved what, when",
                about: """
                    Core Data's persistent history (ATRANSACTION, ACHANGE) in a store it wrote. \
                    Keys: transaction timestamp author bundleID contextName processID change \
                    entity pk properties.
                    """,
                examples: ["history where change == \"update\" sort timestamp:NO limit 20", "count history where author == \"sync\""]),
        ]),
    ]

    static var statementHelp: [Statement] { statementGroups.flatMap(\.statements) }

    /// A statement's topic text.
    static func text(of statement: Statement) -> String {
        var lines = statement.usage
        // Prose is wrapped; an indented line (a table) is kept as it is.
        let about = statement.about.split(separator: "\n").map { $0.hasPrefix(" ") ? String($0) : wrapped(String($0)) }
        lines += [""] + about + ["", "Examples:"]
        lines += statement.examples.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    /// `.help statements`: every statement's usage and summary.
    static var statements: String {
        var lines: [String] = []
        for group in statementGroups {
            lines.append(group.heading)
            for statement in group.statements {
                lines += statement.usage.map { "  " + $0 }
                lines.append("      " + statement.summary + " (.help \(statement.words[0]))")
            }
        }
        lines.append("Statements end at a newline or ';'; a line that ends with an operator, AND, OR, a comma")
        lines.append("or a word such as where goes on on the next. KEY is a key path (department.name).")
        return lines.joined(separator: "\n")
    }
}
