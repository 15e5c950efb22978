/// One step of a compiled pattern.
///
/// Consuming instructions test the scalar at the current position and, when it fits, let their thread go on to
/// the next instruction at the next position. The others are followed at once, without consuming anything.
enum Instruction: Sendable {
    /// Consumes exactly this scalar.
    case scalar(UInt32)
    /// Consumes any scalar whose simple case fold is this value.
    case foldedScalar(UInt32)
    /// Consumes any scalar but this one.
    case anyScalarExcept(UInt32)
    /// Consumes any scalar but a line terminator.
    case anyScalarExceptLineTerminator
    /// Consumes a scalar in the class with this index.
    case characterClass(Int)
    /// Continues at both targets, the first preferred.
    case split(Int, Int)
    /// The end of an iteration of `+` or `*`: continues at `body` for another and at `exit` to stop, the first
    /// when `prefersBody`. When `body` or the loop itself already holds a thread at this position, the iteration
    /// matched nothing, and the thread continues at `exit` alone, with the priority of that empty iteration, as
    /// backtracking engines do.
    case loop(body: Int, exit: Int, prefersBody: Bool)
    /// Continues at the target.
    case jump(Int)
    /// Continues with the next instruction if the assertion holds at the current position.
    case assertion(Assertion)
    /// A match ends here.
    case match
}
