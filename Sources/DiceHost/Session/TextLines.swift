/// The lines of a text file a session reads (game logs, sensor recordings), as bytes:
/// split at LF, a CR before it dropped (CRLF files from Windows editors, RFC 4180 CSV,
/// git's autocrlf), spaces and tabs around each line trimmed.
///
/// In bytes because Swift reads CR LF as one `Character`, which a split at "\n" misses.
enum TextLines {
    static func split(_ text: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(text.utf8)
        return bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            var line = line
            while let last = line.last, last == UInt8(ascii: "\r") || isBlank(last) { line = line.dropLast() }
            while let first = line.first, isBlank(first) { line = line.dropFirst() }
            return line
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
