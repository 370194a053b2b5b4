extension Equilibrium {
    /// Why CFR+ stopped: what a report may claim of the strategy it shows. The raw
    /// values are the words `solve --json` writes (`"stoppedBy"`).
    public enum StopReason: String, Sendable, CaseIterable {
        /// The exploitability reached `Options.exploitability`: the strategy is as good as asked.
        case exploitability
        /// `Options.iterations` came first: the strategy is NOT at the target.
        case iterations
        /// A stop request (Ctrl-C) came first: the strategy so far.
        case interrupted

        /// True when the strategy met the exploitability asked for.
        public var reachedTarget: Bool { self == .exploitability }
    }

    /// Which of CFR+'s strategies a result shows: the one measured least exploitable.
    /// The raw values are the words `solve --json` writes (`"strategy"`).
    public enum StrategyKind: String, Sendable, CaseIterable {
        /// CFR+'s average strategy: what it guarantees to converge with perfect recall.
        case average
        /// The last iterate, kept where it was less exploitable at a check (a seat that
        /// forgets its own moves can make the average wander while the iterate settles).
        case current
    }
}
