/// Indented tree dumps for `explain` and golden tests.
///
/// ```swift
/// print(try Predicate(format: "age > 18 AND ANY kids.name ==[c] 'x'").treeDescription)
/// // AND
/// //   comparison >
/// //     keyPath age
/// //     constant 18
/// //   comparison ANY ==[c]
/// //     keyPath kids.name
/// //     constant "x"
/// ```
extension Predicate {
    /// An indented dump of the tree, one node per line: what `explain` shows
    /// and the golden tests compare.
    ///
    /// ```swift
    /// print(try Predicate(format: "NOT age > 18").treeDescription)
    /// // NOT
    /// //   comparison >
    /// //     keyPath age
    /// //     constant 18
    /// ```
    public var treeDescription: String {
        var lines: [String] = []
        TreeDump.dump(self, indent: 0, into: &lines)
        return lines.joined(separator: "\n")
    }
}

extension Expression {
    /// An indented dump of the tree, one node per line: what `explain`
    /// shows.
    ///
    /// ```swift
    /// print(try Expression(format: "age + 1").treeDescription)
    /// // binary +
    /// //   keyPath age
    /// //   constant 1
    /// ```
    public var treeDescription: String {
        var lines: [String] = []
        TreeDump.dump(self, indent: 0, into: &lines)
        return lines.joined(separator: "\n")
    }
}

enum TreeDump {
    static func pad(_ indent: Int) -> String { String(repeating: "  ", count: indent) }

    static func dump(_ p: Predicate, indent: Int, into lines: inout [String]) {
        let prefix = pad(indent)
        switch p.kind {
        case .constant(let value):
            lines.append(prefix + (value ? "TRUEPREDICATE" : "FALSEPREDICATE"))
        case .not(let operand):
            lines.append(prefix + "NOT")
            dump(operand, indent: indent + 1, into: &lines)
        case .and(let operands), .or(let operands):
            if case .and = p.kind { lines.append(prefix + "AND") } else { lines.append(prefix + "OR") }
            for operand in operands { dump(operand, indent: indent + 1, into: &lines) }
        case .comparison(let c):
            let modifier = c.modifier == .direct ? "" : c.modifier.rawValue + " "
            lines.append(prefix + "comparison " + modifier + c.op.rawValue + c.options.format)
            dump(c.lhs, indent: indent + 1, into: &lines)
            dump(c.rhs, indent: indent + 1, into: &lines)
        }
    }

    static func dump(_ e: Expression, indent: Int, into lines: inout [String]) {
        let prefix = pad(indent)
        switch e.kind {
        case .constant: lines.append(prefix + "constant " + Printer.format(e))
        case .keyPath(let path): lines.append(prefix + "keyPath " + path.joined(separator: "."))
        case .evaluatedObject: lines.append(prefix + "SELF")
        case .variable(let name): lines.append(prefix + "variable $" + name)
        case .placeholder(let spec): lines.append(prefix + "placeholder " + spec.rawValue)
        case .object(let reference): lines.append(prefix + "object " + reference.description)
        case .aggregate(let elements):
            lines.append(prefix + "aggregate")
            for element in elements { dump(element, indent: indent + 1, into: &lines) }
        case .function(let function, let arguments):
            lines.append(prefix + "function " + function.selector)
            for argument in arguments { dump(argument, indent: indent + 1, into: &lines) }
        case .method(let receiver, let selector, let arguments):
            lines.append(prefix + "FUNCTION " + selector)
            dump(receiver, indent: indent + 1, into: &lines)
            for argument in arguments { dump(argument, indent: indent + 1, into: &lines) }
        case .binary(let op, let lhs, let rhs):
            lines.append(prefix + "binary " + op.rawValue)
            dump(lhs, indent: indent + 1, into: &lines)
            dump(rhs, indent: indent + 1, into: &lines)
        case .negate(let operand):
            lines.append(prefix + "negate")
            dump(operand, indent: indent + 1, into: &lines)
        case .index(let base, let index):
            switch index {
            case .at(let i):
                lines.append(prefix + "index")
                dump(base, indent: indent + 1, into: &lines)
                dump(i, indent: indent + 1, into: &lines)
            case .first, .last, .size:
                lines.append(prefix + "index " + (index == .first ? "FIRST" : index == .last ? "LAST" : "SIZE"))
                dump(base, indent: indent + 1, into: &lines)
            }
        case .collection(let op, let base, let key):
            lines.append(prefix + "collection " + op.format + (key.isEmpty ? "" : " " + key.joined(separator: ".")))
            dump(base, indent: indent + 1, into: &lines)
        case .member(let base, let keys):
            lines.append(prefix + "member " + keys.joined(separator: "."))
            dump(base, indent: indent + 1, into: &lines)
        case .subquery(let collection, let variable, let predicate):
            lines.append(prefix + "SUBQUERY $" + variable)
            dump(collection, indent: indent + 1, into: &lines)
            dump(predicate, indent: indent + 1, into: &lines)
        case .cast(let operand, let type):
            lines.append(prefix + "CAST " + type.rawValue)
            dump(operand, indent: indent + 1, into: &lines)
        case .assignment(let name, let value):
            lines.append(prefix + "assignment $" + name)
            dump(value, indent: indent + 1, into: &lines)
        }
    }
}
