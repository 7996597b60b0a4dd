import AISync

/// `aisync completion bash|zsh|fish`: shell completion generated from the command table, so
/// it never drifts from what the parser accepts; record ids come from the store at the
/// moment of completion (`aisync complete-ids`, hidden).
enum CompletionCommands {
    static let all: [any ParsableCommand.Type] = [CompletionCommand.self, CompleteIDs.self]

    /// The shells a completion script is written for.
    enum Shell: String, ExpressibleByArgumentWord {
        case bash, zsh, fish

        static func invalid(_ text: String, name: String) -> (message: String, hint: String?) {
            ("no completion for shell '\(text.prefix(20))'", "Use bash, zsh or fish")
        }
    }

    struct CompletionCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["completion"], abstract: "Print a shell completion script (commands, options, record ids).",
            discussion:
                "bash: `source <(aisync completion bash)` (or save it in /etc/bash_completion.d/aisync). zsh: `source <(aisync completion zsh)`. fish: `aisync completion fish > ~/.config/fish/completions/aisync.fish`."
        )
        @Argument(help: "bash, zsh or fish.") var shell: Shell

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let visible = CommandLineTool.commands.filter { !$0.hidden }
            switch shell {
            case .bash: CLIPlatform.outExact(bash(visible))
            case .zsh:
                CLIPlatform.outExact("#compdef aisync\nautoload -U +X bashcompinit && bashcompinit\n" + bash(visible))
            case .fish: CLIPlatform.outExact(fish(visible))
            }
            return ExitCode.success
        }
    }

    struct CompleteIDs: ParsableCommand {
        static let configuration = CommandConfiguration(
            path: ["complete-ids"], abstract: "Print every record id, one per line (for shell completion).",
            hidden: true)

        func run(_ context: CommandContext) async throws(CLIError) -> Int32 {
            let store = try Context.open(context)
            let records = try await Context.call { () async throws(AISyncError) in
                try await store.list(includeDeleted: true)
            }
            CLIPlatform.outExact(records.map { "\($0.id)\n" }.joined())
            return ExitCode.success
        }
    }

    /// Commands whose first argument is a record id.
    static func takesID(_ c: CommandSpec) -> Bool { c.arguments.first?.name == "ID" }

    /// What each argument of `c` completes to: `id` (record ids), `shell`, or `file`.
    static func argumentKinds(_ c: CommandSpec) -> String {
        c.arguments.map { a in a.name == "ID" ? "id" : a.name == "SHELL" ? "shell" : "file" }.joined(separator: " ")
    }

    /// Every option that takes a value, with its choices when they are few (`chat|story|image`).
    static func valueOptions(_ visible: [CommandSpec]) -> [(String, String?)] {
        var seen: [String: String?] = ["--store": nil]
        for c in visible {
            for o in c.options where !o.isFlag {
                let choices = o.valueName.flatMap {
                    $0.contains("|") ? $0.replacingOccurrences(of: "|", with: " ") : nil
                }
                seen["--\(o.name)"] = choices
            }
        }
        return seen.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `case "$prev"` arms completing an option's value: its choices, files, or nothing.
    static func valueCases(_ valued: [(String, String?)]) -> String {
        valued.map { name, choices in
            "    \(name)) "
                + (choices.map { "COMPREPLY=($(compgen -W \"\($0)\" -- \"$cur\"))" }
                    ?? (name == "--store" || name == "--output"
                        ? "COMPREPLY=($(compgen -f -- \"$cur\"))" : "COMPREPLY=()"))
                + "; return ;;\n"
        }.joined()
    }

    /// The bash script: it reads the words typed so far, skipping options and their values
    /// (`--store DIR` anywhere, whose store is then asked for ids), and completes the word
    /// under the cursor as a command, a subcommand, an option, an option's value, a record
    /// id or a file, as the command table says.
    static func bash(_ visible: [CommandSpec]) -> String {
        let firsts = Array(Set(visible.map { $0.path[0] })).sorted() + ["help"]
        var cases = ""
        for c in visible {
            let options = (c.options.map { "--\($0.name)" } + ["--help", "--store"]).joined(separator: " ")
            cases += "    \"\(c.fullName)\") opts=\"\(options)\"; kinds=\"\(argumentKinds(c))\" ;;\n"
        }
        var groups = ""
        for first in Set(visible.filter { $0.path.count > 1 }.map { $0.path[0] }).sorted() {
            groups +=
                "    \(first)) subs=\"\(visible.filter { $0.path.count > 1 && $0.path[0] == first }.map { $0.path[1] }.joined(separator: " "))\" ;;\n"
        }
        let valued = valueOptions(visible)
        let values = valueCases(valued)
        return """
            # aisync completion for bash (generated by `aisync completion bash`)
            _aisync() {
              local cur=${COMP_WORDS[COMP_CWORD]} prev="" w i skip=0 subs="" opts="" kinds="" n=1
              local -a words=() store=()
              [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
              for ((i = 1; i < COMP_CWORD; i++)); do
                w=${COMP_WORDS[i]}
                if [ "$skip" = 1 ]; then skip=0; [ "${COMP_WORDS[i-1]}" = --store ] && store=(--store "$w"); continue; fi
                case "$w" in
                  --store=*) store=(--store "${w#--store=}") ;;
                  \(valued.map(\.0).joined(separator: "|"))) skip=1 ;;
                  -*) ;;
                  *) words+=("$w") ;;
                esac
              done
              case "$prev" in
            \(values)  esac
              if [ ${#words[@]} -eq 0 ]; then
                if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "--store --version --help" -- "$cur")); return; fi
                COMPREPLY=($(compgen -W "\(firsts.joined(separator: " "))" -- "$cur")); return
              fi
              local cmd=${words[0]}
              case "$cmd" in
            \(groups)  esac
              if [ -n "$subs" ]; then
                if [ ${#words[@]} -eq 1 ]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi
                cmd="$cmd ${words[1]}"; n=2
              fi
              case "$cmd" in
            \(cases)  esac
              if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
              local -a kind=($kinds)
              [ ${#kind[@]} -eq 0 ] && kind=(file)
              local at=$(( ${#words[@]} - n ))
              [ "$at" -ge ${#kind[@]} ] && at=$(( ${#kind[@]} - 1 ))
              case "${kind[$at]:-file}" in
                id) COMPREPLY=($(compgen -W "$(aisync "${store[@]}" complete-ids 2>/dev/null)" -- "$cur")) ;;
                shell) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -f -- "$cur")) ;;
              esac
            }
            complete -F _aisync aisync

            """
    }

    static func fish(_ visible: [CommandSpec]) -> String {
        var lines = ["# aisync completion for fish (generated by `aisync completion fish`)", "complete -c aisync -f"]
        for first in Array(Set(visible.map { $0.path[0] })).sorted() {
            let about = visible.first { $0.path == [first] }?.abstract ?? "\(first) commands"
            lines.append("complete -c aisync -n __fish_use_subcommand -a \(first) -d \(quoted(about))")
        }
        for c in visible {
            let seen = "__fish_seen_subcommand_from \(c.path.last!)"
            if c.path.count > 1 {
                lines.append(
                    "complete -c aisync -n '__fish_seen_subcommand_from \(c.path[0]); and not __fish_seen_subcommand_from \(c.path[1])' -a \(c.path[1]) -d \(quoted(c.abstract))"
                )
            }
            for o in c.options {
                lines.append(
                    "complete -c aisync -n '\(seen)' -l \(o.name)\(o.isFlag ? "" : " -r") -d \(quoted(o.help))")
            }
            if takesID(c) { lines.append("complete -c aisync -n '\(seen)' -a '(aisync complete-ids 2>/dev/null)'") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "\\'") + "'" }
}
