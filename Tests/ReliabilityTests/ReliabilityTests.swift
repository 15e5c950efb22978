import Testing

/// Reliability and security of the whole system, each test with real processes: `kill -9` of the writer mid-write,
/// an import killed midway, a file system that fills up, eight processes on one store beside a capturing daemon,
/// file modes and the socket's peer check, and what deleting, expiring and vacuuming give back.
///
/// The tests run one at a time: several of them load both cores on purpose. Full-size runs of the same checks
/// live in `scripts/reliability/`; `docs/reliability.md` lists what was tried and what held.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ReliabilityTests {}
