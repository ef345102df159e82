import Foundation
import Systemd
import Testing

@Suite("Systemd: the bindings' checks and messages, without a service manager")
struct SystemdBindingTests {
    @Test("Journal field names follow journald's rule: uppercase, digits and '_', not starting with '_' or a digit")
    func fieldNames() {
        for good in ["ALARM_CODE", "CLASSROOM_EVENT", "MESSAGE_ID", "X1"] { #expect(Journal.isValidFieldName(good), "\(good)") }
        for bad in ["", "_PID", "1ST", "alarm_code", "ALARM-CODE", String(repeating: "A", count: 65)] { #expect(!Journal.isValidFieldName(bad), "\(bad)") }
    }

    @Test("A bad field name is refused before anything is sent, with the rule in the message")
    func badFieldRefused() {
        #expect(throws: SystemdError.invalidFieldName("alarm")) { try Journal.send("x", priority: .info, fields: [("alarm", "1025")]) }
        #expect(SystemdError.invalidFieldName("alarm").description.contains("uppercase letters"))
    }

    @Test("Without NOTIFY_SOCKET a notification is a no-op that says so (false), and there is no watchdog")
    func noServiceManager() throws {
        guard ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] == nil else { return }   // run under systemd: not this case
        #expect(try ServiceManager.notify("STATUS=testing") == false)
        #expect(ServiceManager.watchdogInterval == nil)
        #expect(!ServiceManager.isNotifySocketSet)
    }
}
