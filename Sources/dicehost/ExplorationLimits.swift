import ArgumentParser

/// How far an exact analysis (`odds`, `solve`) may explore a game's positions before it
/// stops and says so: `--max-states` and `--max-memory`.
struct ExplorationLimits: ParsableArguments {
    @Option(help: "The most positions to explore before giving up.")
    var maxStates = 4_000_000

    @Option(help: "Stop exploring when the process holds this much memory (the positions found and all else; the script keeps the game's own 64 MiB cap and instruction budget), e.g. 8G, 500M (default 8G).")
    var maxMemory = "8G"

    func validate() throws {
        guard maxStates >= 1 else {
            printError("dicehost: --max-states must be at least 1, got \(maxStates)")
            throw ExitStatus.usage
        }
        do { _ = try memoryBytes() } catch {
            printError("dicehost: \(error)")
            throw ExitStatus.usage
        }
    }

    /// `--max-memory` in bytes (validated: 16M to 1024T).
    func memoryBytes() throws -> Int { try MemorySize.parse(maxMemory, option: "--max-memory") }
}
