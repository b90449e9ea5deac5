/// What happens to the destination when the source of a relationship is
/// deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// The destinations stay; their inverse relationship stops pointing at
    /// the deleted object (the default).
    case nullify = "Nullify"
    /// The destinations are deleted too, and their own rules run in turn.
    case cascade = "Cascade"
    /// The save is refused with a `ValidationError` while the deleted object
    /// still has destinations.
    case deny = "Deny"
    /// Nothing is done: the destinations keep pointing at the deleted object
    /// (Core Data's No Action). Keep the inverse in step yourself.
    case noAction = "No Action"
}
