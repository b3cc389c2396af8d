// The clock line: game time as a person reads it ("Monday February 13, 2023 · 07:14:10").

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];

// Game time is naive local time in the files ("2023-02-13T07:14:10"): read it as written.
function parseTime(iso) {
  const [date, time = "00:00:00"] = iso.split("T");
  const [y, m, d] = date.split("-").map(Number);
  return { y, m, d, hms: time.slice(0, 8), weekday: WEEKDAYS[new Date(y, m - 1, d).getDay()] };
}

export function describeTime(iso) {
  const t = parseTime(iso);
  return `${t.weekday} ${MONTHS[t.m - 1]} ${t.d}, ${t.y} · ${t.hms}`;
}
