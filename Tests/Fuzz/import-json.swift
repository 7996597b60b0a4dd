/// Fuzz target `import-json`: an export's JSON document through source detection
/// (`Import.detect`) and every importer: ChatGPT (conversation trees), Claude, storybook and
/// DALL·E (base64 pictures), as `Import.parse` runs them on a file's parsed bytes.
///
/// Property checked: every record an importer produces is a valid body of its kind
/// (re-decodes with `RecordBody(json:expected:)`), as the store would check it.
@testable import AISyncCore
@testable import AISyncImport

let now = Timestamp(milliseconds: 1_750_000_000_000)
let options = Import.Options(prompt: nil, model: "dall-e-3")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? ImportInput.parse(bytes, path: "fuzz.json") else { return 0 }
    let document = ImportInput.Document(path: "fuzz.json", value: value)
    _ = try? Import.detect(value, path: "fuzz.json")
    var batches: [ImportBatch] = []
    for source in Import.Source.allCases {
        var batch = ImportBatch()
        do {
            switch source {
            case .chatgpt: try ChatGPTImporter.read(document, assets: nil, into: &batch)
            case .claude: try ClaudeImporter.read(document, into: &batch)
            case .storybook: try StorybookImporter.read(document, now: now, into: &batch)
            case .dalle: try DalleImporter.read(document, options: options, now: now, into: &batch)
            }
        } catch {
            continue
        }
        batches.append(batch)
    }
    for batch in batches {
        for item in batch.items {
            let body = item.item.body
            do { _ = try RecordBody(json: body.json, expected: body.kind) } catch {
                fatalError("an importer made an invalid \(body.kind.rawValue) body: \(error)")
            }
        }
    }
    return 0
}
