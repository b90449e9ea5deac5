#!/usr/bin/env python3
"""Writes the sample data sets Samples/people.json and Samples/mail.json.

Deterministic: a fixed seed and no dependencies, so running it again gives
the same bytes. Run it from anywhere:  python3 Samples/generate.py

people.json  (for People.xcdatamodeld)
    A JSON array of 1,200 people. Keys follow the model's `mappedKeyName`
    user info, MagicalRecord style:
        id          -> Person.personID (Integer 64, unique, relatedByAttribute)
        first_name  -> Person.FirstName
        last_name   -> Person.LastName
        age         -> Person.age (16...70)
        email       -> Person.email
        salary      -> Person.salary (Double)
        active      -> Person.active (Boolean)
        hired_at    -> Person.hiredAt (dateFormat "yyyy-MM-dd")
        department  -> Person.department, NESTED as an object
                       {"name": ..., "code": ..., "budget": ...};
                       departments are uniqued by name (the relationship's
                       relatedByAttribute), so the 8 departments appear many
                       times but import as 8 objects.
    A few people have no department, no email or a null salary, to exercise
    optional values.

mail.json  (for Mail.xcdatamodeld)
    A JSON array of 3 users, each with its letters nested:
        user_id, account, write_name,
        letters: [{pk_number, sender, content, date, is_read, incoming}]
    `date` is "yyyy-MM-dd'T'HH:mm:ssZ" (e.g. 2024-03-05T09:30:00+0000); the
    model maps it both to Letter.date (a Date) and Letter.dateString (the
    text as received).
"""

import json
import os
import random
from datetime import date, datetime, timedelta, timezone

SEED = 20240229
HERE = os.path.dirname(os.path.abspath(__file__))

FIRST_NAMES = [
    "Ada", "Alan", "Amara", "Anders", "Anya", "Arjun", "Beatriz", "Bilal",
    "Carmen", "Chen", "Chloe", "Dario", "Dmitri", "Elena", "Emeka", "Fatima",
    "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jamal", "Jana",
    "Kai", "Kenji", "Lara", "Leon", "Lucia", "Mateo", "Maya", "Mei",
    "Nadia", "Nils", "Noor", "Olga", "Omar", "Paula", "Priya", "Quentin",
    "Rafael", "Rosa", "Sami", "Sofia", "Tariq", "Tess", "Umar", "Valeria",
    "Wei", "Yara", "Yusuf", "Zoe",
]
LAST_NAMES = [
    "Abebe", "Andersen", "Baker", "Costa", "Dubois", "Eriksen", "Fischer",
    "Garcia", "Hansen", "Ito", "Jensen", "Kowalski", "Kumar", "Larsen",
    "Lopez", "Martin", "Meyer", "Nakamura", "Novak", "Okafor", "Olsen",
    "Petrov", "Quinn", "Rossi", "Santos", "Schmidt", "Silva", "Tanaka",
    "Usman", "Varga", "Wagner", "Wang", "Weber", "Xu", "Yilmaz", "Zhang",
]
DEPARTMENTS = [
    ("Engineering", "ENG", 2_400_000.0),
    ("Sales", "SAL", 1_100_000.0),
    ("Marketing", "MKT", 650_000.0),
    ("Finance", "FIN", 480_000.0),
    ("Human Resources", "HR", 300_000.0),
    ("Support", "SUP", 520_000.0),
    ("Research", "RND", 1_750_000.0),
    ("Legal", "LEG", 275_000.0),
]
SALARY_BANDS = {  # department code -> (low, high)
    "ENG": (62_000, 165_000), "SAL": (38_000, 120_000), "MKT": (40_000, 110_000),
    "FIN": (45_000, 130_000), "HR": (36_000, 95_000), "SUP": (30_000, 70_000),
    "RND": (55_000, 150_000), "LEG": (60_000, 180_000),
}
DOMAINS = ["example.com", "example.org", "mail.example.net"]


def people(rng):
    result = []
    used_emails = set()
    start = date(1998, 1, 1)
    for index in range(1, 1201):
        first = rng.choice(FIRST_NAMES)
        last = rng.choice(LAST_NAMES)
        age = rng.randint(16, 70)
        # Nobody was hired before turning 16.
        latest_years_back = min(age - 16, 26)
        hired = date(2024, 6, 30) - timedelta(days=rng.randint(0, latest_years_back * 365))
        hired = max(hired, start)
        name, code, budget = rng.choice(DEPARTMENTS)
        low, high = SALARY_BANDS[code]
        salary = round(rng.uniform(low, high) / 50) * 50.0
        local = f"{first}.{last}".lower()
        email = f"{local}@{rng.choice(DOMAINS)}"
        suffix = 2
        while email in used_emails:
            email = f"{local}{suffix}@{email.split('@')[1]}"
            suffix += 1
        used_emails.add(email)
        person = {
            "id": 100000 + index,
            "first_name": first,
            "last_name": last,
            "age": age,
            "email": email,
            "salary": salary,
            "active": rng.random() > 0.12,
            "hired_at": hired.isoformat(),
            "department": {"name": name, "code": code, "budget": budget},
        }
        roll = rng.random()
        if roll < 0.02:
            person["department"] = None
        elif roll < 0.04:
            person["email"] = None
        elif roll < 0.05:
            person["salary"] = None
        result.append(person)
    return result


USERS = [
    (1, "ada@example.com", "Ada Lovelace"),
    (2, "alan@example.org", "Alan Turing"),
    (3, "grace@example.net", "Grace Hopper"),
]
SENDERS = [
    "billing@example.com", "team@example.org", "newsletter@example.net",
    "friend@example.com", "hr@example.org", "noreply@example.net",
]
SUBJECTS = [
    "Your invoice for {month}", "Meeting notes: {topic}", "Lunch on {day}?",
    "Weekly digest: {topic}", "Re: {topic}", "Reminder: {topic} tomorrow",
    "Photos from {day}", "Quick question about {topic}",
]
TOPICS = [
    "the roadmap", "budget review", "the offsite", "release 2.3", "hiring",
    "the new office", "security training", "the quarterly report",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
MONTHS = ["January", "February", "March", "April", "May", "June"]


def mail(rng):
    users = []
    pk = 5000
    base = datetime(2024, 1, 8, 8, 0, tzinfo=timezone.utc)
    for user_id, account, write_name in USERS:
        letters = []
        for _ in range(20):
            pk += 1
            when = base + timedelta(minutes=rng.randint(0, 170 * 24 * 60))
            subject = rng.choice(SUBJECTS).format(
                month=rng.choice(MONTHS), topic=rng.choice(TOPICS), day=rng.choice(DAYS))
            incoming = rng.random() > 0.25
            letters.append({
                "pk_number": pk,
                "sender": rng.choice(SENDERS) if incoming else account,
                "content": subject,
                "date": when.strftime("%Y-%m-%dT%H:%M:%S+0000"),
                "is_read": rng.random() > 0.4,
                "incoming": incoming,
            })
        letters.sort(key=lambda letter: letter["date"])
        users.append({
            "user_id": user_id,
            "account": account,
            "write_name": write_name,
            "letters": letters,
        })
    return users


def write(name, data):
    path = os.path.join(HERE, name)
    # One record per line: small, and diffs stay readable.
    lines = [json.dumps(record, ensure_ascii=False, separators=(", ", ": ")) for record in data]
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(lines) + "\n]\n")


def main():
    rng = random.Random(SEED)
    write("people.json", people(rng))
    write("mail.json", mail(random.Random(SEED + 1)))


if __name__ == "__main__":
    main()
