print("mrq")
