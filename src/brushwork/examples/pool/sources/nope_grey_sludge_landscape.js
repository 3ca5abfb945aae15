// A landscape drowned in grey-brown: heavy overlapping washes of umber, slate and
// olive churned together into sludge with no horizon.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// an irregular rounded wash, radius r, wobble 0..1
function blob(x, y, rx, ry, wobble, seed) {
  brush.beginShape(0.9);
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    const m = 1 + wobble * (noise(seed + k * 0.5) - 0.5);
    brush.vertex(x + rx * m * cos(a), y + ry * m * sin(a));
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
  background(200, 194, 184);
  randomSeed(231);
  noiseSeed(231);
  brush.noStroke();
  const cols = ["#6a5e50", "#5a6266", "#6a6a48", "#4e4640", "#7a7068"];
  for (let i = 0; i < 14; i++) {
    wash(cols[i % 5], 240, 0.3, 0.3, 0.4);
    blob(random(60, 540), random(100, 560), random(90, 150), random(60, 110), 0.8, i * 3);
  }
}
