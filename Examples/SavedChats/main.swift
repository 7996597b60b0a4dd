// The README's "Using the library" example, built and run by the tests (ExampleTests):
// what a SwiftUI app with saved chats does with AISync, minus the views.
import AISync
import Foundation

let directory = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "aisync-example"
let store = try (try? Store.open(at: "\(directory)/store")) ?? Store.create(at: "\(directory)/store", deviceName: "iPhone")

// Live updates, as a view model would subscribe to them.
let changes = await store.changes()
let watcher = Task { for await change in changes { return change.records } ; return [] }

// A chat with two messages; the summary list a sidebar would show.
let chat = try await store.createChat(title: "Lisbon trip", model: "gpt-4o")
try await store.appendMessage(to: chat, role: .user, text: "Three things to see in Lisbon?")
print("changed:", await watcher.value.map(\.rawValue).sorted())
for summary in try await store.list() {
    print("\(summary.title) — updated \(summary.updated.date.timeIntervalSince1970 > 0 ? "just now" : "?")")
}

// Keep it safe: push to a folder remote (a WebDAV URL works the same way via RemoteFactory).
try FileManager.default.createDirectory(atPath: "\(directory)/remote", withIntermediateDirectories: true)
let report = try await SyncEngine(store: store, remote: FolderRemote(root: "\(directory)/remote"), name: "usb").push()
print("pushed \(report.pushed) version(s)")
