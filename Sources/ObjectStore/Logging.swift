import Logging

let storeLogger = Logger(label: "mrq.store")
