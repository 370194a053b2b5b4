import Foundation

/// Stops an exploration that grows past a memory budget, with a message that says how far
/// it got; and the progress line's figures (positions per second, growth).
struct ExplorationBudget {
    var maxMemory: Int
    let began = DispatchTime.now().uptimeNanoseconds
    /// The look at what grew, made when the budget stops the exploration.
    var whatGrows: (() -> GrowingFields?)?

    static func residentBytes() -> Int { ProcessMemory.resident() }

    func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 }

    /// How far an exploration got: "stopped after 2.1 s: 101 found, 37 explored (37%)".
    func reached(explored: Int, found: Int) -> String {
        String(format: "stopped after %.1f s: %d positions found, %d explored (%.0f%% of those found)",
               seconds(), found, explored, 100 * Double(explored) / Double(max(found, 1)))
    }

    /// Throws when over budget; otherwise the progress figures.
    func check(explored: Int, found: Int) throws -> String {
        let resident = Self.residentBytes()
        let elapsed = max(seconds(), 1e-9)
        let line = String(format: "exploring: %d positions found, %d explored, %.0f positions/s, %.0f MiB", found, explored,
                          Double(explored) / elapsed, Double(resident) / 1048576)
        if resident > maxMemory {
            throw OddsError.tooMuchMemory(String(format: "stopped at the memory budget (--max-memory %.1f GiB) after %.1f s: "
                + "%d positions found, %d explored (%.0f%% of those found), still growing. The game may be too big to solve "
                + "exactly here: try `dicehost sim`, fewer dice or a smaller param (--set ...), or raise --max-memory",
                Double(maxMemory) / 1073741824, elapsed, found, explored, 100 * Double(explored) / Double(max(found, 1))),
                growth: whatGrows?())
        }
        return line
    }
}
