import Foundation
import Testing
@testable import Shell

/// `fetch`: the model's fetch request templates, listed and run by name
/// with values for their `$variables`.
@Suite struct TemplateStatementTests {
    /// The People sample (its template `PeopleOlderThan` is
    /// `age > $minAge`) with four people.
    static func harness() throws -> ShellHarness {
        let shell = try ShellHarness()
        let setup = shell.run("""
            insert Department { name: "Eng" }
            insert Person { FirstName: "Ada", age: 36, personID: 1 }
            insert Person { FirstName: "Bob", age: 61, personID: 2 }
            insert Person { FirstName: "Cy", age: 70, personID: 3 }
            insert Person { FirstName: "Di", age: 12, personID: 4 }
            save
            """)
        #expect(setup.ok, "\(setup.errors)")
        return shell
    }

    @Test func fetchAloneListsTheTemplates() throws {
        let shell = try Self.harness()
        let result = shell.run("fetch")
        #expect(result.ok)
        #expect(result.text.contains("PeopleOlderThan │ Person │ age > $minAge │ $minAge"), "\(result.text)")
    }

    @Test func aTemplateRunsWithItsVariables() throws {
        let shell = try Self.harness()
        shell.run(".mode csv")
        let result = shell.run("fetch PeopleOlderThan with minAge = 60")
        #expect(result.ok, "\(result.errors)")
        let names = result.text.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
        #expect(names.sorted() == ["Bob", "Cy"])
        // `$minAge`, `:` and an expression work too.
        #expect(shell.run("fetch PeopleOlderThan with $minAge: 30 + 35").text.split(separator: "\n").count == 2)
        // Variables not given come from the session.
        #expect(shell.run("let minAge = 10").ok)
        #expect(shell.run("fetch PeopleOlderThan").text.split(separator: "\n").count == 5)  // a header and four
    }

    @Test func aTemplateResultCanBeKeptInAVariable() throws {
        let shell = try Self.harness()
        let kept = shell.run("let old = fetch PeopleOlderThan with minAge = 65")
        #expect(kept.ok, "\(kept.errors)")
        #expect(kept.text.contains("old = 1 Person"), "\(kept.text)")
    }

    @Test(arguments: [
        ("fetch PeopleOlderThan", "error: fetch request template 'PeopleOlderThan': no value for variable '$minAge'; "
            + "give it with 'fetch PeopleOlderThan with minAge = …'"),
        ("fetch PeopleOlderThen with minAge = 1", "error: no fetch request template named 'PeopleOlderThen'; did you mean 'PeopleOlderThan'?"),
        ("fetch PeopleOlderThan with minAge", "error: incomplete input"),
        ("fetch 12", "error: expected a fetch request template's name"),
    ])
    func mistakesAreNamed(_ statement: String, _ expected: String) throws {
        let shell = try Self.harness()
        let result = shell.run(statement)
        #expect(!result.ok)
        #expect(result.errors.hasPrefix(expected), "\(result.errors)")
    }

    @Test func explainShowsTheFilledInRequestAndTheSwiftCall() throws {
        let shell = try Self.harness()
        let result = shell.run("explain fetch PeopleOlderThan with minAge = 60")
        #expect(result.ok, "\(result.errors)")
        #expect(result.text.contains("template:\n  PeopleOlderThan: Person where age > $minAge"))
        #expect(result.text.contains("canonical:\n  age > 60"))
        #expect(result.text.contains(#"WHERE t."age" > ?1"#))
        #expect(result.text.contains(#"try model.fetchRequestFromTemplate(withName: "PeopleOlderThan", substitutionVariables: ["minAge": 60])"#))
    }

    @Test func completionOffersTemplatesThenWithThenVariables() throws {
        let shell = try Self.harness()
        #expect(shell.session.completions(in: "fetch Pe", cursor: 8) == ["PeopleOlderThan"])
        #expect(shell.session.completions(in: "fetch PeopleOlderThan w", cursor: 23) == ["with"])
        #expect(shell.session.completions(in: "fetch PeopleOlderThan with m", cursor: 28) == ["minAge"])
        #expect(shell.session.completions(in: "explain fetch P", cursor: 15) == ["PeopleOlderThan"])
    }

    @Test func anEntityDeclarationKeepsTheTemplates() throws {
        let shell = try Self.harness()
        #expect(shell.run("entity Tag { label: String }").ok)
        #expect(shell.run("fetch PeopleOlderThan with minAge = 60").ok)
    }

    @Test func theStatementParses() throws {
        let statements = try StatementParser.parse("fetch; fetch A; fetch A with x = 1, $y: \"b\"")
        guard case .templates = statements[0].statement else { Issue.record("fetch alone lists"); return }
        guard case .template(let bare) = statements[1].statement, case .template(let full) = statements[2].statement else {
            Issue.record("fetch A runs a template")
            return
        }
        #expect(bare.name.text == "A" && bare.variables.isEmpty)
        #expect(full.variables.map(\.name.text) == ["x", "y"])
    }
}
