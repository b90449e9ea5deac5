/// What happens to the destination when the source of a relationship is
/// deleted.
public enum DeleteRule: String, Sendable, Hashable {
    case nullify = "Nullify"
    case cascade = "Cascade"
    case deny = "Deny"
    case noAction = "No Action"
}
