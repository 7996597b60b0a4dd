/// Fuzz target `imgur-answer`: whatever Imgur sends back, through `ImgurAnswer` (JSON or HTML
/// error shapes, the message cleaned of secrets), then its `data` through `ImgurUpload.parse`
/// for the official API and for a local stand-in base (as an upload answer and as a list).
///
/// Property checked: the cleaned message never holds the secret.
@testable import AISyncImgur

let secret = "s3cr3tT0ken"
let endpoints = [try! ImgurEndpoint("https://api.imgur.com"), try! ImgurEndpoint("http://127.0.0.1:8080/imgur")]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let answer = ImgurAnswer(bytes, secrets: [secret])
    if let message = answer.message { precondition(!message.contains(secret), "the secret leaked into the message") }
    guard let payload = answer.json?["data"] else { return 0 }
    for endpoint in endpoints {
        _ = try? ImgurUpload.parse(payload, endpoint: endpoint)
        for item in payload.arrayValue ?? [] { _ = try? ImgurUpload.parse(item, endpoint: endpoint) }
    }
    return 0
}
