// Fuzzes what `dicehost sim merge` reads: simulation results as JSON, decoded and merged
// as the command does, then summarised. Input: one or more JSON documents separated by
// the byte 0x1E (record separator); every document is decoded, then they are merged in
// order and the merged result's statistics computed.
import DiceHost
import Foundation
import FuzzSupport

/// `dicehost sim --json` writes {"result": …, "summary": …}; a bare result is read too.
struct Document: Decodable { let result: SimulationResult }

func decode(_ data: Data) throws -> SimulationResult {
    if let document = try? JSONDecoder().decode(Document.self, from: data) { return document.result }
    return try JSONDecoder().decode(SimulationResult.self, from: data)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let results = bytes.split(separator: 0x1E, omittingEmptySubsequences: true).prefix(8).compactMap { try? decode(Data($0)) }
    guard var merged = results.first else { return 0 }
    for next in results.dropFirst() {
        guard let m = try? merged.merging(next) else { continue }
        merged = m
    }
    _ = merged.missingRanges
    for tally in [merged.rolls, merged.turns] {
        _ = (tally.count, tally.mean, tally.standardDeviation, tally.median, tally.minimum, tally.maximum, tally.quantile(0.95))
    }
    for (_, metric) in merged.metrics { _ = metric.mean }
    return 0
}
