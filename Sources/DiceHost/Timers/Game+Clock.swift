extension Game {
    /// When the next pending timer is due (ms of game time), or nil: what a host with a
    /// real-time clock (`dicehost serve`) waits for before it moves the clock.
    public var nextTimerDue: Int? { isOver ? nil : host.timers.first?.due }
}
