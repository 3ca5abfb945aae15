// A hibiscus whose petals were glazed over and over in brown, olive and grey until
// the colour turned to mud; no eye, no light left in it.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a fan-shaped petal: narrow base at (cx, cy), wide ruffled rim along ang
function petal(cx, cy, ang, len, wid, seed, squash = 1) {
  const pts = [[0, -0.10 * wid], [0.40 * len, -0.42 * wid]];
  for (let k = 0; k <= 8; k++) {
    const t = map(k, 0, 8, -HALF_PI, HALF_PI);
    const ruffle = 1 + 0.16 * (noise(seed + k * 0.7) - 0.5);
    pts.push([len * (0.72 + 0.28 * cos(t)) * ruffle, 0.52 * wid * sin(t) * ruffle]);
  }
  pts.push([0.40 * len, 0.42 * wid], [0, 0.10 * wid]);
  brush.beginShape(0.7);
  for (const p of pts) {
    const x = p[0] * cos(ang) - p[1] * sin(ang);
    const y = p[0] * sin(ang) + p[1] * cos(ang);
    brush.vertex(cx + x, cy + y * squash);
  }
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(236, 230, 218);
  randomSeed(201);
  noiseSeed(201);
  brush.noStroke();
  const cols = ["#8a6a4a", "#6e6a3e", "#7a6e6a", "#5e4a3a", "#8c7a52"];
  for (let pass = 0; pass < 4; pass++) {
    for (let i = 0; i < 5; i++) {
      wash(cols[(i + pass) % 5], 230, 0.2, 0.3, 0.4);
      petal(300, 300, i * TWO_PI / 5 + pass * 0.3, random(130, 170), random(120, 150), pass * 10 + i);
    }
  }
  wash("#3e3a2e", 230, 0.2, 0.3, 0.4);
  brush.circle(300, 300, 50);
}
