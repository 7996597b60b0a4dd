import AISyncTestSupport
import Foundation
import Testing

@testable import AISyncCore
@testable import AISyncHTTP

// S3 credentials are found as the AWS CLI finds them (issue 27): environment, then the shared
// credentials file, then the config file; the profile from AWS_PROFILE; the region from
// AWS_REGION, AWS_DEFAULT_REGION or the profile. No error or description shows a secret.

@Suite("AWS credentials")
struct AWSCredentialsTests {
    /// A HOME with `~/.aws/credentials` and `~/.aws/config` as given (nil: no such file).
    static func home(credentials: String?, config: String?) -> String {
        let dir = CLIHarness.makeTemporaryDirectory()
        try? FileManager.default.createDirectory(atPath: "\(dir)/.aws", withIntermediateDirectories: true)
        if let credentials {
            FileManager.default.createFile(atPath: "\(dir)/.aws/credentials", contents: Data(credentials.utf8))
        }
        if let config { FileManager.default.createFile(atPath: "\(dir)/.aws/config", contents: Data(config.utf8)) }
        return dir
    }

    static let credentials = """
        # written by aws configure
        [default]
        aws_access_key_id = AKIADEFAULT
        aws_secret_access_key = default/secret+key

        [work]\r
        aws_access_key_id=AKIAWORK\r
        aws_secret_access_key =  work secret with spaces  \r
        aws_session_token = work-token\r
        ; a comment
        [broken]
        aws_access_key_id = AKIABROKEN
        """
    static let config = """
        [default]
        region = eu-west-3
        s3 =
          addressing_style = path
          region = not-this-one
        [profile work]
        region = us-west-2
        [profile only-config]
        aws_access_key_id = AKIACONFIG
        aws_secret_access_key = config-secret
        region = auto
        """

    @Test("The default profile and its region, from the two files")
    func defaultProfile() throws {
        let home = Self.home(credentials: Self.credentials, config: Self.config)
        defer { CLIHarness.removeTree(home) }
        let found = try #require(try AWSCredentials.lookup(environment: ["HOME": home]))
        #expect(found.key.accessKeyID == "AKIADEFAULT" && found.key.secretAccessKey == "default/secret+key")
        #expect(found.key.sessionToken == nil)
        #expect(found.region == "eu-west-3")
        #expect(found.source == "\(home)/.aws/credentials [default]")
        #expect(!"\(found)".contains("default/secret+key"))
    }

    @Test("AWS_PROFILE picks a profile: CRLF lines, spaces around =, a session token, the config's [profile NAME]")
    func namedProfile() throws {
        let home = Self.home(credentials: Self.credentials, config: Self.config)
        defer { CLIHarness.removeTree(home) }
        let work = try #require(try AWSCredentials.lookup(environment: ["HOME": home, "AWS_PROFILE": "work"]))
        #expect(work.key.accessKeyID == "AKIAWORK" && work.key.secretAccessKey == "work secret with spaces")
        #expect(work.key.sessionToken == "work-token" && work.region == "us-west-2")
        let configOnly = try #require(
            try AWSCredentials.lookup(environment: ["HOME": home, "AWS_PROFILE": "only-config"]))
        #expect(configOnly.key.accessKeyID == "AKIACONFIG" && configOnly.region == "auto")
        #expect(configOnly.source == "\(home)/.aws/config [profile only-config]")
    }

    @Test("The environment wins over the files, and AWS_REGION over AWS_DEFAULT_REGION over the profile")
    func environmentFirst() throws {
        let home = Self.home(credentials: Self.credentials, config: Self.config)
        defer { CLIHarness.removeTree(home) }
        var env = ["HOME": home, "AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]
        var found = try #require(try AWSCredentials.lookup(environment: env))
        #expect(found.key.accessKeyID == "AKIAENV" && found.source == "environment (AWS_ACCESS_KEY_ID)")
        #expect(found.region == "eu-west-3")
        env["AWS_DEFAULT_REGION"] = "ap-south-1"
        found = try #require(try AWSCredentials.lookup(environment: env))
        #expect(found.region == "ap-south-1")
        env["AWS_REGION"] = "sa-east-1"
        env["AWS_SESSION_TOKEN"] = "env-token"
        found = try #require(try AWSCredentials.lookup(environment: env))
        #expect(found.region == "sa-east-1" && found.key.sessionToken == "env-token")
    }

    @Test("Other files by AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE; nothing anywhere is nil")
    func otherFiles() throws {
        let home = Self.home(credentials: nil, config: nil)
        defer { CLIHarness.removeTree(home) }
        #expect(try AWSCredentials.lookup(environment: ["HOME": home]) == nil)
        // An empty AWS_PROFILE is unset, as for the AWS CLI: the default profile, not an error.
        #expect(try AWSCredentials.lookup(environment: ["HOME": home, "AWS_PROFILE": ""]) == nil)
        let elsewhere = Self.home(credentials: Self.credentials, config: Self.config)
        defer { CLIHarness.removeTree(elsewhere) }
        let found = try #require(
            try AWSCredentials.lookup(environment: [
                "HOME": home, "AWS_SHARED_CREDENTIALS_FILE": "\(elsewhere)/.aws/credentials",
                "AWS_CONFIG_FILE": "\(elsewhere)/.aws/config", "AWS_PROFILE": "work",
            ]))
        #expect(found.key.accessKeyID == "AKIAWORK" && found.region == "us-west-2")
    }

    @Test("A missing profile, a key without its secret: one line naming the file, never a secret")
    func errors() throws {
        let home = Self.home(credentials: Self.credentials, config: Self.config)
        defer { CLIHarness.removeTree(home) }
        #expect {
            try AWSCredentials.lookup(environment: ["HOME": home, "AWS_PROFILE": "nope"])
        } throws: { error in
            let e = error as! AISyncError
            return e.code == .configuration && e.message.contains("\"nope\"")
                && e.message.contains("\(home)/.aws/credentials")
        }
        #expect {
            try AWSCredentials.lookup(environment: ["HOME": home, "AWS_PROFILE": "broken"])
        } throws: { error in
            let e = error as! AISyncError
            return e.message
                == "\(home)/.aws/credentials [broken] has an aws_access_key_id but no aws_secret_access_key"
        }
        #expect {
            try AWSCredentials.lookup(environment: ["HOME": home, "AWS_ACCESS_KEY_ID": "AKIAENV"])
        } throws: { error in
            let e = error as! AISyncError
            return e.message.contains("AWS_SECRET_ACCESS_KEY") && !"\(e)".contains("secret+key")
        }
    }
}
