import Foundation
import PasteboardControl
import Testing

/// The typed messages as they go over the wire.
@Suite struct ControlMessageTests {
    func line(_ request: ControlRequest) -> String {
        String(decoding: ControlProtocol.line(request).dropLast(), as: UTF8.self)
    }

    @Test(arguments: [
        (ControlRequest.ping, #"{"command":"ping"}"#),
        (.restore(id: 42, once: true, expire: 30), #"{"command":"restore","expire":30,"id":42,"once":true}"#),
        (.restore(id: 7), #"{"command":"restore","id":7,"once":false}"#),
        (.notify(ControlEvent(.pinned, id: 3)), #"{"command":"notify","event":{"event":"pinned","id":3}}"#),
        (.watch(), #"{"command":"watch"}"#),
        (.watch(since: 42), #"{"command":"watch","since":42}"#),
        (.forget(ids: [3, 9]), #"{"command":"forget","ids":[3,9]}"#),
        (.approve(), #"{"command":"approve"}"#),
        (.answerPaste(request: 4, allow: true), #"{"allow":true,"command":"answer-paste","request":4}"#),
        (.paste(key: "ctrl+v"), #"{"command":"paste","key":"ctrl+v"}"#),
    ])
    func requestsEncodeAsDocumented(request: ControlRequest, expected: String) throws {
        #expect(line(request) == expected)
        #expect(try ControlRequest.parse(Data(expected.utf8)) == request)
    }

    @Test func everyCommandRoundTrips() throws {
        let requests: [ControlRequest] = [
            .ping, .status, .restore(id: 1, once: false, expire: 2.5), .stack(ids: [3, 1]), .clear, .forget(ids: [4, 5]), .reschedule,
            .reloadConfiguration,
            .notify(ControlEvent("x")), .watch(since: 7), .approve(), .answerPaste(request: 1, allow: false),
            .paste(key: "shift+insert"), .stop,
        ]
        #expect(requests.map(\.command) == ControlRequest.commands)
        for request in requests {
            #expect(try ControlRequest.parse(ControlProtocol.line(request).dropLast()) == request)
        }
    }

    @Test func unknownFieldsAreIgnored() throws {
        let request = try ControlRequest.parse(Data(#"{"command":"restore","id":5,"colour":"blue","once":true}"#.utf8))
        #expect(request == .restore(id: 5, once: true))
    }

    @Test func anUnknownCommandIsNamedInTheError() {
        let error = #expect(throws: ControlError.self) { try ControlRequest.parse(Data(#"{"command":"dance"}"#.utf8)) }
        #expect(error?.message == #"unknown command "dance""#)
        #expect(error?.code == .malformed)
    }

    @Test(arguments: [
        (#"{"command":"restore"}"#, #""id" is missing"#),
        (#"{"command":"notify","event":{"evedt":"pinned"}}"#, #""event" is missing in "event""#),
        (#"{"command":"notify","event":7}"#, #""event" has the wrong type"#),
        (#"{"command":"restore","id":1,"expire":-4}"#, #""expire" is invalid"#),
        ("not json", "not JSON"),
        ("[1,2]", "not a JSON object"),
    ])
    func aMalformedRequestSaysWhatIsWrong(line: String, problem: String) {
        let error = #expect(throws: ControlError.self) { try ControlRequest.parse(Data(line.utf8)) }
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "no error")")
    }

    @Test func eventsKeepEveryDocumentedField() throws {
        var event = ControlEvent(.captured, id: 9, time: 1_700_000_000.25)
        event.new = false
        event.selection = "primary"
        event.types = ["public.utf8-plain-text", "public.html"]
        event.size = 12
        event.source = "Firefox"
        event.committed = 1_700_000_000.5
        event.ownerTime = 123_456
        let decoded = try ControlProtocol.decode(ControlEvent.self, from: ControlProtocol.line(event).dropLast())
        #expect(decoded == event)
        #expect(decoded.date == Date(timeIntervalSince1970: 1_700_000_000.25))
    }

    @Test func repliesOmitWhatTheyDoNotSay() {
        #expect(String(decoding: ControlProtocol.line(ControlReply()), as: UTF8.self) == "{\"ok\":true}\n")
        #expect(
            String(decoding: ControlProtocol.line(ControlReply.failure("no")), as: UTF8.self) == "{\"error\":\"no\",\"ok\":false}\n")
    }
}
