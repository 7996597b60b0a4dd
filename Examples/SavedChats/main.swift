// The README's "Using the library" example, built and run by the tests (ExampleTests):
// what a SwiftUI app with saved chats does with AISync, minus the views.
import AISync
import Foundation

let directory = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "aisync-example"
let store =
    try (try? Store.open(at: "\(directory)/store")) ?? Store.create(at: "\(directory)/store", deviceName: "iPhone")

// Live updates, as a view model would subscribe to them.
let changes = await store.changes()
let watcher = Task {
    for await change in changes { return change.records }
    return []
}

// A chat with two messages; the summary list a sidebar would show.
let chat = try await store.createChat(title: "Lisbon trip", model: "gpt-4o")
try await store.appendMessage(to: chat, role: .user, text: "Three things to see in Lisbon?")
print("changed:", await watcher.value.map(\.rawValue).sorted())
for summary in try await store.list() {
    print("\(summary.title) — updated \(summary.updated.date.timeIntervalSince1970 > 0 ? "just now" : "?")")
}

// Keep it safe: push to a folder remote (a WebDAV URL works the same way via RemoteFactory),
// with a progress bar. A push cancelled by the user (Task.cancel) stops between writes and
// leaves the remote valid; the next push completes it.
try FileManager.default.createDirectory(atPath: "\(directory)/remote", withIntermediateDirectories: true)
let (progress, onProgress) = SyncProgress.stream()
let engine = SyncEngine(
    store: store, remote: FolderRemote(root: "\(directory)/remote"), name: "usb", progress: onProgress)
let bar = Task {
    for await p in progress { return p.description }
    return ""
}
let first = Task { try await engine.push() }
first.cancel()
do {
    _ = try await first.value
    print("push finished before the cancel")
} catch let e as AISyncError where e.code == .cancelled { print("push cancelled") }
let report = try await engine.push()
print("progress:", await bar.value)
print("pushed \(report.pushed) version(s)")
