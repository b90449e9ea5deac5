/// The text of `.help` and its topics.
enum Help {
    static let topics = ["statements", "predicates", "operators", "import", "dot"]

    static func text(topic: String?) -> String {
        switch topic?.lowercased() {
        case nil: return overview
        case "statements": return statements
        case "predicates", "predicate": return predicates
        case "operators", "operator": return operators
        case "import": return importing
        case "dot", "commands": return dot
        case let other?:
            let suggestion = topics.first { $0.hasPrefix(String(other.prefix(3))) }
            return "no help on '\(other)'" + (suggestion.map { "; did you mean '.help \($0)'?" } ?? "") + "\ntopics: " + topics.joined(separator: ", ")
        }
    }

    static let overview = """
        mrq: query and change a Core Data store with NSPredicate syntax.

          Person where age > 18 sort LastName:NO,FirstName limit 10
          count Person where department.name BEGINSWITH[c] "eng"
          explain Person where age > 18

        Statements end at a newline or ';'. Changes stay pending until 'save'.
        More: .help statements | predicates | operators | import | dot
        """

    static let statements = """
        Queries
          Person [where PRED] [sort KEY[:YES|:NO],…] [limit N] [offset N]
          first Person where PRED [sort …]
          count Person [where PRED]
          select [distinct] FirstName, department.name from Person [where …] [sort …]
          sum|min|max|avg KEY of Person [where …] [group by KEY,…] [having PRED]
          count of Person group by department.name having count > 10
          count of Person group by department.name sort count:NO limit 3
          select name, people.@count, people.@avg.age, budget / 12 from Department
          fetch                                    (the model's fetch request templates)
          fetch PeopleOlderThan with minAge = 60   (a template, its $variables given)
        Changes (pending until save)
          insert Person { FirstName: "Ada", age: 36, department: first Department where name == "Engineering" }
          update Person where age > 60 set active = NO, age = age + 1
          delete Person where active == NO
          truncate Person
          import Person from "people.json"
          save | rollback | undo | redo            (undo goes back as far as the last save)
        Schema
          entity Person { name: String required; age: Int16 = 0; department: Department inverse people }
          types: String Int16 Int32 Int64 Double Float Decimal Bool Date Data UUID URI Transformable
          to-many: people: [Person] inverse department ordered cascade
          many-to-many: items: [Item] inverse [tags]
        Variables
          let adults = Person where age >= 18      (objects: use as $adults in insert/update values)
          let n = count Person                     (a value: use as $n in predicates)
          let sales = first Department where name == "Sales"   (an object: Person where department == $sales)
          mrq --param minAge=21 …                  (Person where age >= $minAge)
        Teaching
          explain Person where age > 18            any statement: what it does, the SQL that runs, bound values, Swift call
        Core Data stores (an app's store, in Core Data's own layout)
          mrq --store App.sqlite                   (no --model: the model the store keeps)
          history where change == "update" AND entity == "Note" sort timestamp:NO limit 20
          count history where author == "sync"
          .save-as Seed.sqlite coredata            (a copy in Core Data's layout, for an app to ship)
          .save-as Library.xml coredata            (a copy in Apple's XML store format, macOS NSXMLStoreType)
          keys of history: transaction timestamp author bundleID contextName processID change entity pk properties
        """

    static let predicates = """
        A predicate is NSPredicate's format language (Apple's Predicate Programming Guide).

          age > 18 AND (department.name == "Eng" OR salary >= 50000)
          NOT (active == YES)                lastName BEGINSWITH[cd] "sm"
          ANY tags.label == "vip"            ALL people.age >= 18     NONE people.active == NO
          people.@count > 3                  people.@avg.salary > 1000
          SUBQUERY(people, $p, $p.age > 60).@count > 0
          hiredAt > @2020-01-01              hiredAt < now()
          name IN {"Ada", "Grace"}           age BETWEEN {18, 65}
          nickname == nil                    salary * 12 > 100000

        Literals: "text" 'text' 42 3.5 1e3 0x1F 0o17 0b101 YES NO TRUE FALSE nil NULL
                  {1, 2, 3} @2024-01-31 @2024-01-31T10:00:00Z CAST(700000000, "NSDate")
        Keys:     a.b.c through relationships; #key for a reserved word; SELF
        Options:  [c] case-insensitive, [d] diacritic-insensitive, [n] normalized: name ==[cd] "zoe"
        Nil:      with a nil left side, != is true; <, >, BEGINSWITH… are false
        See .help operators for every operator with an example.
        """

    static let operators = """
        Comparison
          ==  =   age == 30                  !=  <>  age != 30
          <   <=  =<  age <= 30              >   >=  =>  age >= 30
          BETWEEN     age BETWEEN {18, 65}   IN          name IN {"Ada", "Bob"}
        Strings (options [c] [d] [cd] [n] on each)
          BEGINSWITH  name BEGINSWITH "A"    ENDSWITH    email ENDSWITH[c] ".ORG"
          CONTAINS    name CONTAINS[cd] "zo"  LIKE       name LIKE "A?a*"   (* any run, ? one character)
          MATCHES     code MATCHES "[A-Z]{3}[0-9]+"      (whole string, ICU regular expression)
          IN (string)  "da" IN name
        Logic
          AND &&      age > 18 AND active == YES      OR ||   a == 1 OR b == 2
          NOT !       NOT (age > 18)         TRUEPREDICATE   FALSEPREDICATE
        Collections
          ANY SOME    ANY people.age > 60    ALL         ALL people.active == YES
          NONE        NONE people.age < 18   CONTAINS    tags CONTAINS $tag
          @count @sum @avg @min @max          people.@sum.salary > 100000
          [n] [FIRST] [LAST] [SIZE]           {1,2,3}[LAST] == 3
          SUBQUERY(people, $p, $p.salary > 50000).@count >= 2
        Arithmetic and functions
          + - * / **  salary * 1.1 > 50000   -age    (unary minus)
          now()  sum({…}) count: min: max: average: median: mode: stddev:
          sqrt: log: ln: exp: floor: ceiling: abs: trunc:   FUNCTION(x, 'sqrt:')
        """

    static let importing = """
        import Entity from "file.json" reads an array of JSON objects (or one object)
        following MagicalRecord's rules in the model's userInfo:
          mappedKeyName        the JSON key (a.b.c for nested keys); .1 … .9 are fallbacks
          relatedByAttribute   the attribute that identifies objects (default <entity>ID)
          dateFormat           e.g. yyyy-MM-dd; UnixTime for milliseconds since 1970
          useDefaultValueWhenNotPresent  YES: an absent key sets the default value
        Existing objects are updated, not duplicated; JSON null sets nil.
        """

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
