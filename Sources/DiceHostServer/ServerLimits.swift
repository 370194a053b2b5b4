/// What one server allows, so no client can use up what the others need.
public struct ServerLimits: Sendable {
    /// Messages a connection may send per second on average, and in one burst.
    public var messagesPerSecond = 20.0
    public var messageBurst = 40.0
    /// Refused messages in a row (over the rate) after which the connection is closed.
    public var refusalsBeforeClose = 100
    /// Rooms one server holds, and connections (players and spectators) one room takes.
    public var rooms = 5_000
    public var connectionsPerRoom = 64
    /// Connections the server holds at once (WebSockets, and HTTP connections not upgraded
    /// yet); past it a new one is answered 503 and closed. Each is an open file: `serve`
    /// raises its open-files limit to match (`OpenFileLimit`); when the system allows
    /// fewer, it lowers this (and, with logs, `rooms`) to keep a reserve, and says so.
    public var connections = 10_000
    /// Rooms one connection may create.
    public var roomsPerConnection = 20
    /// A room nobody is connected to is closed after this long (its log stays).
    public var idleRoomSeconds = 1_800
    /// Messages waiting to be sent to one client; a client that falls further behind is
    /// disconnected (it comes back with its token and gets the current state).
    public var outboundBacklog = 1_024
    /// Events a joining client gets with the state (the table's recent log). A room keeps
    /// between this many and twice this many in memory (its log file keeps them all).
    public var historyEvents = 200
    /// Hot-reload rule files saved while rooms use them (`--watch`), polled this often.
    public var watchRules = false
    public var watchIntervalMilliseconds = 250
    /// A room's fair share of CPU (`RoomCPUAccount`): seconds of CPU a second over time,
    /// and the most it may use at once before it is slowed to that share. A room that stays
    /// in debt for `roomSuspendAfterSeconds` is suspended for `roomSuspensionSeconds`.
    public var roomCPUShare = 0.25
    public var roomCPUBurstSeconds = 2.0
    public var roomSuspendAfterSeconds = 20.0
    public var roomSuspensionSeconds = 60.0
    /// A timer that fails waits this long before it tries again, doubling each time up to
    /// `timerRetryMaxSeconds`; in a room nobody is connected to it waits for someone.
    public var timerRetrySeconds = 1.0
    public var timerRetryMaxSeconds = 60.0
    /// Seconds a seat's move may take before the rules' bot plays it (and the wait for
    /// another game) when neither the room's creator nor the rules (`turn_seconds`) set
    /// one; 0: no clock. Not range-checked as `create`'s `turnSeconds` is: tests use 1.
    public var defaultTurnSeconds = 60
    /// An HTTP request's head (request line and headers) must arrive whole within this many
    /// seconds (else 408 and the connection closes) and have at most this many bytes (else 431).
    public var requestHeadSeconds = 10.0
    public var maxRequestHeadBytes = 16_384

    public init() {}
}
