// Chaotic jagged shapes flung across the canvas: random vertices make torn,
// self-crossing polygons that describe nothing.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a closed polygon through a list of [x, y] points
function poly(pts, curv) {
  brush.beginShape(curv);
  for (const p of pts) brush.vertex(p[0], p[1]);
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
  background(248, 246, 240);
  randomSeed(221);
  brush.noStroke();
  const cols = ["#d83a3a", "#3a6ad8", "#2a9a4a", "#e0c020", "#a03ab0"];
  for (let i = 0; i < 14; i++) {
    const pts = [];
    const ox = random(0, 340), oy = random(0, 340);
    for (let k = 0; k < 7; k++) pts.push([ox + random(0, 260), oy + random(0, 260)]);
    wash(cols[i % 5], 170, 0.1, 0.3, 0.3);
    poly(pts, 0);
  }
}
