import ArgumentParser
import Foundation
import ServeOptions

extension DiceHostCommand {
    /// `dicehost serve`: checks the options here, then replaces this process with
    /// dicehost-server (same process id, arguments, signals and exit status), the program
    /// built beside dicehost that holds the server stack.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: ServeOptions.abstract, discussion: ServeOptions.discussion)

        @OptionGroup var options: ServeOptions

        func run() throws {
            let arguments = Array(CommandLine.arguments.drop { $0 != "serve" }.dropFirst())
            let failure = ServerProgram.replaceProcess(arguments: arguments)
            printError("dicehost: \(failure)")
            throw ExitStatus.usage
        }
    }
}
