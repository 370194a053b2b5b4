// Fuzzes what `dicehost sim merge` reads: simulation results as JSON, decoded and merged
// as the command does, then summarised. Input: one or more JSON documents separated by
// the byte 0x1E (record separator); every document is decoded, then they are merged in
// order and the merged result's statistics computed.
import DiceHost
import Foundation
import FuzzSupport

/// What `sim merge` reads: `SimulationResult.decode(json:)` validates every field, so
/// whatever it accepts must merge and summarise without a trap.
func decode(_ data: Data) throws -> SimulationResult {
    try SimulationResult.decode(json: data)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let results = bytes.split(separator: 0x1E, omittingEmptySubsequences: true).prefix(8).compactMap { try? decode(Data($0)) }
    guard var merged = results.first else { return 0 }
    for next in results.dropFirst() {
        guard let m = try? merged.merging(next) else { continue }
        fuzzCheck(m.games == merged.games + next.games, "merged games \(m.games) != \(merged.games) + \(next.games)")
        merged = m
    }
    _ = merged.missingRanges
    for tally in [merged.rolls, merged.turns] {
        _ = (tally.count, tally.mean, tally.standardDeviation, tally.median, tally.minimum, tally.maximum, tally.quantile(0.95))
    }
    for (_, metric) in merged.metrics { _ = metric.mean }
    return 0
}
