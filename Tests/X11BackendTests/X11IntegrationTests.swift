import Testing

/// End-to-end tests of the X11 clipboard with real parts: a private Xvfb per test, `xclip` and `xsel` as the
/// other applications, the C owner in `Tests/Fixtures/x11-test-owner.c` for what they cannot do (several
/// representations, secrets, stalls), real applications (GTK 3, GTK 4 and Qt 5 owners in `Tests/Fixtures`, CopyQ,
/// Chromium), and the built `pb` (daemon and commands) in subprocesses.
///
/// Serialized: the tests are timing-sensitive (stall and expiry deadlines) and the machine may have two cores.
/// No test can hang: every wait has a deadline, and each test has a time limit.
@Suite(.serialized, .timeLimit(.minutes(3)))
enum X11IntegrationTests {}
